/**
 * An OTLP/HTTP receiver for tests and benchmarks: node:http on 127.0.0.1, a random port, taking
 * `POST /v1/traces` in the JSON encoding the exporter sends, every span kept flat with its
 * resource's attributes. Ids are read as the JSON encoding writes them (hex; base64 accepted too).
 *
 * @example
 * const otlp = await startOtlpReceiver();
 * const config = { tracing: otlp.settings };
 * const span = await otlp.until((s) => s.name === 'POST /links');
 * await otlp.close();
 */
import { createServer } from 'node:http';
import type { TracingSettings } from './model.js';

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  resource: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  /** 2 = error. */
  status: number;
  startMs: number;
  endMs: number;
}

interface AnyValue { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean }
interface KeyValue { key: string; value: AnyValue }

const valueOf = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue ?? v.boolValue ?? '');
const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
/** Hex as written; base64 (the protobuf-JSON mapping) turned into hex. */
const idOf = (id: string | undefined, bytes: number) => (!id ? '' : new RegExp(`^[0-9a-f]{${bytes * 2}}$`).test(id) ? id : Buffer.from(id, 'base64').toString('hex'));
const msOf = (nanos: string | number | undefined) => Number(BigInt(nanos ?? 0) / 1_000_000n);

export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests++;
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.statusCode = 404;
        return res.end();
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
      };
      for (const rs of body.resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              name: String(s.name),
              traceId: idOf(s.traceId as string, 16),
              spanId: idOf(s.spanId as string, 8),
              parentSpanId: idOf(s.parentSpanId as string | undefined, 8),
              kind: Number(s.kind ?? 0),
              attributes: attributesOf(s.attributes as KeyValue[]),
              resource,
              links: ((s.links ?? []) as { traceId: string; spanId: string }[]).map((l) => ({ traceId: idOf(l.traceId, 16), spanId: idOf(l.spanId, 8) })),
              status: Number((s.status as { code?: number } | undefined)?.code ?? 0),
              startMs: msOf(s.startTimeUnixNano as string),
              endMs: msOf(s.endTimeUnixNano as string),
            });
          }
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const url = `http://127.0.0.1:${address.port}/v1/traces`;
  return {
    spans,
    url,
    /** Export requests received (any path). */
    requests: () => requests,
    /** Settings sending here, exported every 50 ms. */
    settings: { url, headers: {}, serviceName: 'waymark-test', sampleRatio: 1, exportDelayMs: 50 } satisfies TracingSettings,
    /** The first span `match` accepts, waited for (the bound is generous: worker threads start slowly under load). */
    async until(match: (span: ReceivedSpan) => boolean, what = 'a span', timeoutMs = 60_000): Promise<ReceivedSpan> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = spans.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received ${spans.map((s) => s.name).join(', ') || 'none'}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;

/**
 * Traces (OpenTelemetry, docs/tracing.md) as the rest of the app sees them: a `Traces` that starts
 * spans, and a span that takes attributes, a failure and its end, and says its `traceparent`.
 * Nothing here imports OpenTelemetry: with tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT) every
 * call goes to `NO_TRACES`, whose spans do nothing, and the SDK is never loaded (`startTraces`
 * imports otel.ts only when settings are given). Spans are parented explicitly (a span or a
 * `traceparent` string), never through a context manager: AsyncLocalStorage's hooks would cost
 * every `await` of the process, the redirect's included.
 *
 * @example
 * const traces = await startTraces(config.tracing, 'main');
 * const span = traces.start('import.run', { attributes: { 'waymark.workspace_id': ws } });
 * try { ... } catch (err) { span.fail(err); throw err; } finally { span.end(); }
 */
import type { TracingSettings } from '../config.js';

export type SpanKindName = 'internal' | 'server' | 'client' | 'producer' | 'consumer';
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanOptions {
  kind?: SpanKindName;
  attributes?: SpanAttributes;
  /** The parent: a span of this thread, or a W3C `traceparent` (another thread's, a caller's header). */
  parent?: TraceSpan | string;
  /** Spans this one follows from without being their child (the batches a fold counts). */
  links?: readonly (TraceSpan | string)[];
  /** Epoch ms (default: now). */
  startTime?: number;
}

export interface TraceSpan {
  set(attributes: SpanAttributes): void;
  /** Marks the span failed with the error's message (and records it as an exception event). */
  fail(err: unknown): void;
  /** Epoch ms (default: now); a second end is ignored. */
  end(endTime?: number): void;
  /** The W3C `traceparent` naming this span; undefined when it records nothing. */
  readonly traceparent: string | undefined;
}

export interface Traces {
  readonly enabled: boolean;
  start(name: string, options?: SpanOptions): TraceSpan;
  /** Sends what is finished and stops (a lifecycle's close). */
  close(): Promise<void>;
}

const NO_SPAN: TraceSpan = { set() {}, fail() {}, end() {}, traceparent: undefined };

/** Tracing off: spans that do nothing, allocated once. */
export const NO_TRACES: Traces = { enabled: false, start: () => NO_SPAN, close: async () => {} };

/**
 * The tracer of one thread (`thread` names it on every span: main, event-log, webhook-dispatch,
 * import); `NO_TRACES` without settings. Each thread that emits spans starts its own and sends to
 * the same collector.
 */
export async function startTraces(settings: TracingSettings | undefined, thread: string): Promise<Traces> {
  if (!settings) return NO_TRACES;
  const { createOtelTraces } = await import('./otel.js');
  return createOtelTraces(settings, thread);
}

/** Runs `fn` inside a span: failed if it throws, ended when it settles. */
export async function inSpan<T>(traces: Traces, name: string, options: SpanOptions, fn: (span: TraceSpan) => Promise<T>): Promise<T> {
  const span = traces.start(name, options);
  try {
    return await fn(span);
  } catch (err) {
    span.fail(err);
    throw err;
  } finally {
    span.end();
  }
}

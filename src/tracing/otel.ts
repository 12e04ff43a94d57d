/**
 * The OpenTelemetry SDK behind `Traces` (traces.ts), loaded only when tracing is on: a tracer
 * provider of this thread's own (never registered globally, so no library starts spans of its
 * own), a batch span processor sending OTLP/HTTP JSON to TracingSettings.url, a parent-based
 * ratio sampler, and the W3C trace-context propagator for `traceparent` in and out.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { VERSION } from '../version.js';
import type { SpanAttributes, SpanKindName, SpanOptions, TraceSpan, Traces, TracingSettings } from './model.js';

const KINDS: Record<SpanKindName, SpanKind> = {
  internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER,
};

/** The longest a close waits for the last spans to be sent. */
export const CLOSE_WAIT_MS = 1500;

const propagator = new W3CTraceContextPropagator();
const getter = { get: (carrier: Record<string, string>, key: string) => carrier[key], keys: (carrier: Record<string, string>) => Object.keys(carrier) };
const setter = { set: (carrier: Record<string, string>, key: string, value: string) => void (carrier[key] = value) };

/** The context a `traceparent` names (ROOT_CONTEXT when it is malformed: the span starts a trace). */
function contextOf(traceparent: string): Context {
  return propagator.extract(ROOT_CONTEXT, { traceparent }, getter);
}

function clean(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(attributes ?? {})) if (v !== undefined) out[k] = v;
  return out;
}

class OtelSpan implements TraceSpan {
  private ended = false;
  constructor(readonly span: Span) {}
  set(attributes: SpanAttributes): void {
    this.span.setAttributes(clean(attributes));
  }
  fail(err: unknown): void {
    const e = err instanceof Error ? err : new Error(String(err));
    this.span.recordException(e);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
  }
  end(endTime?: number): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end(endTime);
  }
  get traceparent(): string | undefined {
    if (!this.span.isRecording()) return undefined;
    const carrier: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, setter);
    return carrier.traceparent;
  }
}

export function createOtelTraces(settings: TracingSettings, thread: string): Traces {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': VERSION, 'waymark.thread': thread }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.sampleRatio) }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: settings.url, headers: settings.headers, timeoutMillis: 10_000 }),
        scheduledDelayMillis: settings.exportDelayMs,
        // Spans waiting past this many are dropped (a collector that is down costs bounded memory).
        maxQueueSize: 4096,
      }),
    ],
  });
  const tracer = provider.getTracer('waymark', VERSION);
  const contextFor = (parent: SpanOptions['parent']): Context =>
    parent === undefined ? ROOT_CONTEXT : typeof parent === 'string' ? contextOf(parent) : parent instanceof OtelSpan ? trace.setSpan(ROOT_CONTEXT, parent.span) : ROOT_CONTEXT;
  const linkOf = (target: TraceSpan | string): Link | undefined => {
    const ctx = trace.getSpanContext(contextFor(target));
    return ctx ? { context: ctx } : undefined;
  };
  return {
    enabled: true,
    start(name, options = {}) {
      const links = options.links?.map(linkOf).filter((l): l is Link => l !== undefined);
      const span = tracer.startSpan(name, { kind: KINDS[options.kind ?? 'internal'], attributes: clean(options.attributes), links, startTime: options.startTime }, contextFor(options.parent));
      return new OtelSpan(span);
    },
    // A collector that is down would hold the shutdown for the exporter's retries (8 s and more,
    // past docker stop's grace): what is not sent within CLOSE_WAIT_MS is dropped.
    close: () => {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)));
      return Promise.race([provider.shutdown().catch(() => undefined), waited]).finally(() => clearTimeout(timer));
    },
  };
}

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
import type { SpanOptions, TraceSpan, Traces, TracingSettings } from './model.js';

export type { SpanAttributes, SpanKindName, SpanOptions, TraceSpan, Traces } from './model.js';

const NO_SPAN: TraceSpan = { set() {}, fail() {}, end() {}, traceparent: undefined };

/** Tracing off: spans that do nothing, allocated once. */
export const NO_TRACES: Traces = { enabled: false, start: () => NO_SPAN, close: async () => {} };

/**
 * The tracer of one thread (`thread` names it on every span: main, event-log, webhook-dispatch);
 * `NO_TRACES` without settings. Each thread that emits spans starts its own and sends to
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

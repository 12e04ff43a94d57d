/**
 * What traces are made of, as plain types (a leaf that imports nothing): the OTEL_* settings as
 * config.ts reads them (plain data: the threads that emit spans are started with it), and the span
 * interface the app uses (traces.ts) and the SDK implements (otel.ts).
 */
export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  /** Share of new traces recorded (parent-based: a sampled caller's trace is always followed). */
  sampleRatio: number;
  /** How often finished spans are sent, ms. */
  exportDelayMs: number;
}

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

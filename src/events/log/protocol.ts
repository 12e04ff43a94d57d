/**
 * What the main thread and the log thread say to each other over their one MessagePort
 * (client.ts, service.ts). Requests name a method of `LogApi` and carry its arguments; each is
 * answered once, by id, with its value or its error (message and code, so the caller can still
 * tell a refused invoice id or a busy database). The log thread also sends notices unasked: what
 * a fold wrote (so the main thread nudges the deliverers) and log lines. The main thread sends the
 * listeners' settings (whose clicks someone subscribes to) whenever they change.
 *
 * Raw clicks travel packed (raw-click.ts `packClicks`): one transferable buffer per batch.
 *
 * @example
 * port.postMessage({ id: 7, method: 'findClick', args: ['ws_1', 'Ab12…'] } satisfies LogRequest);
 * // ← { id: 7, value: { kind: 'click', … } }
 */
import type { AggregateSpec, EventPage, EventRow, ForgetResult, MergedRow, ScopeInput, StoredEvent, TimeSpan } from '../event-store.js';
import type { EventTarget } from '../column/column-engine.js';
import type { EventStoreKind } from '../store-kind.js';
import type { RingBatch } from './click-ring.js';

/** What the log thread answers. Every method resolves once the work is done (appends: stored). */
export interface LogApi {
  /** Which store runs, once it is open (the client picks its half for transactions of its own). */
  describe(): Promise<{ kind: EventStoreKind }>;
  /** Raw clicks of the click writer (packed): completed on the log thread, stored once by batch id. */
  appendRawClicks(batchId: string, packed: Uint8Array): Promise<void>;
  /** The click ring's memory (click-ring.ts), shared once before its first batch. */
  attachClickRing(buffer: SharedArrayBuffer): Promise<void>;
  /** Rows [from, to) of the ring, read in place: completed and stored once by batch id, like `appendRawClicks`. */
  appendClickRing(batchId: string, batch: RingBatch): Promise<void>;
  /** Resolves once clicks can be completed without waiting for the location data to load. */
  clicksReady(): Promise<void>;
  /** Counts every click stored so far (the fold, now); resolves after its commit. */
  fold(): Promise<void>;

  // The event store, where no transaction of the caller's is joined.
  append(events: StoredEvent[]): Promise<void>;
  appendClicks(batchId: string, rows: StoredEvent[]): Promise<void>;
  findClick(workspaceId: string, clickId: string): Promise<EventRow | undefined>;
  existingClickIds(clickIds: string[]): Promise<string[]>;
  scopeLinkIds(input: ScopeInput, max: number): Promise<string[]>;
  aggregate(spec: AggregateSpec, range: TimeSpan, boundaries?: number[]): Promise<MergedRow[]>;
  page(spec: AggregateSpec, range: TimeSpan, page: EventPage): Promise<EventRow[]>;
  forgetLinks(workspaceId: string, linkIds: string[]): Promise<number>;
  forgetCustomer(workspaceId: string, customerId: string): Promise<number>;
  forgetIp(ip: string): Promise<ForgetResult>;
  forgetClick(clickId: string): Promise<ForgetResult>;
  expire(before: number, limit: number): Promise<number>;
  expireSummaries(before: number, limit: number): Promise<number>;
  copied(): Promise<void>;

  // A column store's part of the main thread's own transactions (column/metadata-events.ts).
  erasedRows(target: EventTarget): Promise<Record<string, unknown>[]>;
  deleteEvents(target: EventTarget): Promise<number>;
  scheduleCopies(ids: string[]): Promise<void>;

  /** Stops the timers, counts what is left, closes the store. */
  close(): Promise<void>;
}

export type LogMethod = keyof LogApi;

export interface LogRequest<M extends LogMethod = LogMethod> {
  id: number;
  method: M;
  args: Parameters<LogApi[M]>;
}

export interface LogError {
  message: string;
  code?: string;
}

export type LogReply = { id: number; value?: unknown; error?: undefined } | { id: number; error: LogError };

/** Sent by the log thread unasked. */
export type LogNotice =
  /** A fold committed; `written`: the listeners that wrote something (their deliverers act now). */
  | { notice: 'counted'; written: string[] }
  | { notice: 'log'; level: 'info' | 'warn' | 'error'; msg: string; fields: Record<string, unknown> };

/** Sent by the main thread, unanswered: the listeners' settings changed. */
export interface LogSettings<S = unknown> {
  settings: S;
}

export type FromLog = LogReply | LogNotice;
export type ToLog = LogRequest | LogSettings;

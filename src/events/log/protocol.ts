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
import type { EventLog } from '../event-store.js';
import type { EventStoreKind } from '../store-kind.js';
import type { RingBatch } from './click-ring.js';
import type { HeapFigures } from '../../heap-figures.js';
import type { DuckDbMemory } from '../duckdb/memory.js';

/**
 * What the log thread answers: the `EventLog` (every call of it is served here, none joins a
 * transaction of the caller's), plus the log's own. Every method resolves once the work is done
 * (appends: stored).
 */
export interface LogApi extends EventLog {
  /** Which store runs, once it is open. */
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
  /**
   * This thread's heap and, on DuckDB, what DuckDB holds (bench/redirect-flood.ts, the memory
   * bound); `collect`: after a full collection, where `--expose-gc` allows one.
   */
  memory(collect?: boolean): Promise<LogMemory>;
  /** Stops the timers, counts what is left, closes the store. */
  close(): Promise<void>;
}

/** The log thread's memory: its V8 heap, and DuckDB's buffer manager when the store is DuckDB. */
export interface LogMemory {
  heap: HeapFigures;
  duckDb?: DuckDbMemory;
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

/**
 * Sent by the main thread, unanswered: one more client (the API thread, src/api-thread/) on its
 * own port, served like the first; it hears the `counted` notices, not the log lines.
 */
export interface LogAttach {
  attachClient: import('node:worker_threads').MessagePort;
}

export type FromLog = LogReply | LogNotice;
export type ToLog = LogRequest | LogSettings | LogAttach;

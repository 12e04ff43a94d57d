/**
 * `ctx.events` on the main thread: the `EventLog` as a plain proxy of the log thread over one
 * port (protocol.ts). Every call is a request the log thread answers; nothing runs here and
 * nothing joins a transaction (the main thread's transactional share is the `ConversionStore`:
 * ../conversions.ts).
 *
 * @example
 * const events = createEventLogClient(worker);
 * await events.appendRawClicks('b1', clicks); // resolves once stored
 * await events.aggregate(spec, range);        // on the log thread
 */
import type { EventLog } from '../event-store.js';
import type { FromLog, LogApi, LogAttach, LogMemory, LogMethod, LogNotice, LogRequest, LogSettings } from './protocol.js';
import { packClicks, type RawClick } from './raw-click.js';
import type { RingBatch } from './click-ring.js';
import type { MessagePort } from 'node:worker_threads';

/** A port (a worker, or one end of a MessageChannel). */
export interface LogPort {
  postMessage(message: unknown, transfer?: readonly (ArrayBuffer | MessagePort)[]): void;
  on(event: 'message', listener: (message: FromLog) => void): unknown;
  ref?(): void;
  unref?(): void;
}

export interface EventLogClient extends EventLog {
  /** Resolves once the store is open (after any upgrade), with its kind. */
  describe(): Promise<{ kind: 'sql' | 'duckdb' | 'clickhouse' }>;
  /** The click writer's batch: completed and stored once by `batchId` on the log thread; resolves once stored. */
  appendRawClicks(batchId: string, clicks: readonly RawClick[]): Promise<void>;
  /** Shares the click ring's memory with the log thread (before its first batch). */
  attachClickRing(buffer: SharedArrayBuffer): Promise<void>;
  /** A batch of the click ring: read in place and stored once by `batchId` on the log thread; resolves once stored. */
  appendClickRing(batchId: string, batch: RingBatch): Promise<void>;
  /** Resolves once clicks are completed without waiting for the location data. */
  clicksReady(): Promise<void>;
  /** Counts every click stored so far now (link counters, usage, deliveries). */
  fold(): Promise<void>;
  /** The log thread's heap and DuckDB's memory (protocol.ts `LogMemory`). */
  memory(collect?: boolean): Promise<LogMemory>;
  /** The listeners' settings changed (whose clicks someone subscribes to). */
  setListenerSettings(settings: unknown): void;
  /** The log thread counts what is left and closes the store; calls after this fail. */
  close(): Promise<void>;
  /** Serves one more client on `port` (the API thread's); returns at once. */
  attachClient(port: MessagePort): void;
}

export interface EventLogClientOptions {
  /** The log thread's notices (folds that wrote something, log lines). */
  onNotice?(notice: LogNotice): void;
}

/** A request to the log thread, answered with the method's value. */
export type LogCall = <M extends LogMethod>(method: M, args: Parameters<LogApi[M]>, transfer?: ArrayBuffer[]) => ReturnType<LogApi[M]>;

export function createEventLogClient(port: LogPort, options: EventLogClientOptions = {}): EventLogClient & { fail(err: Error): void } {
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  let failed: Error | undefined;

  port.on('message', (message) => {
    if ('notice' in message) {
      options.onNotice?.(message);
      return;
    }
    const p = pending.get(message.id);
    if (!p) return;
    pending.delete(message.id);
    // An idle port must not keep the process alive; one with a call in flight must.
    if (!pending.size) port.unref?.();
    if (message.error) p.reject(Object.assign(new Error(message.error.message), message.error.code ? { code: message.error.code } : {}));
    else p.resolve(message.value);
  });
  port.unref?.();

  const call: LogCall = (method, args, transfer) =>
    new Promise((resolve, reject) => {
      if (failed) return reject(failed);
      const id = nextId++;
      if (!pending.size) port.ref?.();
      pending.set(id, { resolve, reject });
      port.postMessage({ id, method, args } satisfies LogRequest, transfer);
    }) as ReturnType<LogApi[typeof method]>;

  return {
    /** The log thread is gone: every call in flight and every later one fails with `err`. */
    fail(err) {
      failed = err;
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    },

    describe: () => call('describe', []),
    appendRawClicks(batchId, clicks) {
      const packed = packClicks(clicks);
      return call('appendRawClicks', [batchId, packed], [packed.buffer as ArrayBuffer]);
    },
    attachClickRing: (buffer) => call('attachClickRing', [buffer]),
    appendClickRing: (batchId, batch) => call('appendClickRing', [batchId, batch]),
    clicksReady: () => call('clicksReady', []),
    fold: () => call('fold', []),
    memory: (collect) => call('memory', [collect]),
    setListenerSettings(settings) {
      if (!failed) port.postMessage({ settings } satisfies LogSettings);
    },
    close: () => call('close', []),
    attachClient(client) {
      if (!failed) port.postMessage({ attachClient: client } satisfies LogAttach, [client]);
    },

    append: (events) => call('append', [events]),
    appendClicks: (batchId, clicks) => call('appendClicks', [batchId, clicks]),
    copyConversions: (ids) => call('copyConversions', [ids]),
    findClick: (workspaceId, clickId) => call('findClick', [workspaceId, clickId]),
    existingClickIds: (ids) => call('existingClickIds', [ids]),
    scopeLinkIds: (input, max) => call('scopeLinkIds', [input, max]),
    aggregate: (spec, range, boundaries) => call('aggregate', [spec, range, boundaries]),
    page: (spec, range, page) => call('page', [spec, range, page]),
    buyerConversions: (spec, range, since) => call('buyerConversions', [spec, range, since]),
    creditAggregate: (spec, range, model) => call('creditAggregate', [spec, range, model]),
    forgetLinks: (workspaceId, linkIds) => call('forgetLinks', [workspaceId, linkIds]),
    forgetIp: (ip) => call('forgetIp', [ip]),
    forgetClick: (clickId) => call('forgetClick', [clickId]),
    applyErasures: () => call('applyErasures', []),
    expire: (before, limit) => call('expire', [before, limit]),
    expireSummaries: (before, limit) => call('expireSummaries', [before, limit]),
  };
}

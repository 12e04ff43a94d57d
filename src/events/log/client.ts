/**
 * `ctx.events` on the main thread: the `EventStore` as a client of the log thread over one port
 * (protocol.ts). Clicks, reads, aggregates, pages, erasures and retention go to the log thread,
 * which owns the store; what joins a transaction of the caller's (a lead committed with its
 * customer, an erasure with the customer's delete) runs here, on the caller's connection, through
 * `local`: the store's metadata half (the SQL store itself; a column store's metadata side, whose
 * column part it asks of the log thread). The conversion look-ups read the metadata database
 * here too: point reads by index, in the caller's transaction when given one.
 *
 * @example
 * const events = createEventLogClient(worker, local);
 * await events.appendRawClicks('b1', clicks); // resolves once stored
 * await events.aggregate(spec, range);        // on the log thread
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { EventStore } from '../event-store.js';
import type { FromLog, LogApi, LogMethod, LogNotice, LogRequest, LogSettings } from './protocol.js';
import { packClicks, type RawClick } from './raw-click.js';
import type { ColumnCopies, ColumnErasure } from '../column/metadata-events.js';
import type { RingBatch } from './click-ring.js';

/** A port (a worker, or one end of a MessageChannel). */
export interface LogPort {
  postMessage(message: unknown, transfer?: readonly ArrayBuffer[]): void;
  on(event: 'message', listener: (message: FromLog) => void): unknown;
  ref?(): void;
  unref?(): void;
}

/** What runs on the main thread, in the caller's transaction or on its connection. */
export type LocalHalf = Pick<
  EventStore<Kysely<Database>>,
  'latestLead' | 'hasAnyLead' | 'leadNamesSince' | 'saleByInvoice' | 'hasSaleOnLink' | 'isDuplicateInvoice'
> & {
  appendInTransaction(events: Parameters<EventStore['append']>[0], tx: Kysely<Database>): Promise<void>;
  forgetLinks(workspaceId: string, linkIds: readonly string[], tx: Kysely<Database>): Promise<number>;
  forgetCustomer(workspaceId: string, customerId: string, tx: Kysely<Database>): Promise<number>;
};

export interface EventLogClient extends EventStore<Kysely<Database>> {
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
  /** The listeners' settings changed (whose clicks someone subscribes to). */
  setListenerSettings(settings: unknown): void;
  /** The log thread counts what is left and closes the store; calls after this fail. */
  close(): Promise<void>;
}

export interface EventLogClientOptions {
  /** The log thread's notices (folds that wrote something, log lines). */
  onNotice?(notice: LogNotice): void;
}

/** A request to the log thread, answered with the method's value. */
export type LogCall = <M extends LogMethod>(method: M, args: Parameters<LogApi[M]>, transfer?: ArrayBuffer[]) => ReturnType<LogApi[M]>;

/**
 * `localHalf` builds the main thread's half; it may ask the log thread through the given call (a
 * column store's erasures end with the column store's delete).
 */
export function createEventLogClient(port: LogPort, localHalf: (call: LogCall) => LocalHalf, options: EventLogClientOptions = {}): EventLogClient & { fail(err: Error): void } {
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
  const local = localHalf(call);

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
    setListenerSettings(settings) {
      if (!failed) port.postMessage({ settings } satisfies LogSettings);
    },
    close: () => call('close', []),

    append: (events, tx) => (tx ? local.appendInTransaction(events, tx) : call('append', [[...events]])),
    appendClicks: (batchId, rows) => call('appendClicks', [batchId, [...rows]]),
    copied: () => call('copied', []),
    findClick: (workspaceId, clickId) => call('findClick', [workspaceId, clickId]),
    existingClickIds: (ids) => call('existingClickIds', [[...ids]]),

    latestLead: (workspaceId, customerId, eventName, tx) => local.latestLead(workspaceId, customerId, eventName, tx),
    hasAnyLead: (workspaceId, customerId, tx) => local.hasAnyLead(workspaceId, customerId, tx),
    leadNamesSince: (workspaceId, customerId, since, tx) => local.leadNamesSince(workspaceId, customerId, since, tx),
    saleByInvoice: (workspaceId, invoiceId, tx) => local.saleByInvoice(workspaceId, invoiceId, tx),
    hasSaleOnLink: (workspaceId, customerId, linkId, tx) => local.hasSaleOnLink(workspaceId, customerId, linkId, tx),
    isDuplicateInvoice: (err) => local.isDuplicateInvoice(err),

    scopeLinkIds: (input, max) => call('scopeLinkIds', [input, max]),
    aggregate: (spec, range, boundaries) => call('aggregate', [spec, range, boundaries ? [...boundaries] : undefined]),
    page: (spec, range, page) => call('page', [spec, range, page]),

    forgetLinks: (workspaceId, linkIds, tx) => (tx ? local.forgetLinks(workspaceId, linkIds, tx) : call('forgetLinks', [workspaceId, [...linkIds]])),
    forgetCustomer: (workspaceId, customerId, tx) => (tx ? local.forgetCustomer(workspaceId, customerId, tx) : call('forgetCustomer', [workspaceId, customerId])),
    forgetIp: (ip) => call('forgetIp', [ip]),
    forgetClick: (clickId) => call('forgetClick', [clickId]),

    expire: (before, limit) => call('expire', [before, limit]),
    expireSummaries: (before, limit) => call('expireSummaries', [before, limit]),
  };
}

/** A column store's part of the main thread's own transactions, asked of the log thread. */
export function remoteColumnParts(call: LogCall): { erasure: ColumnErasure; copies: ColumnCopies } {
  return {
    erasure: {
      erasedRows: (target) => call('erasedRows', [target]),
      deleteEvents: (target) => call('deleteEvents', [target]),
    },
    copies: {
      // A copy that is not scheduled is made by the next catch-up (within ~10 s).
      schedule: (ids) => void call('scheduleCopies', [[...ids]]).catch(() => undefined),
      drain: () => call('copied', []),
    },
  };
}

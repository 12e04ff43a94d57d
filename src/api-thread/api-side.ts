/**
 * The API thread's side of the split (app.ts with `apiThread`): the event log as a second client
 * of the log thread the front started, the redirect as the front answers for it (a click still in
 * the ring, its counters), and the link changes sent to the front's caches.
 *
 * @example
 * const { app } = await buildApp({ config, database, apiThread: { front: parentPort, log, changes } });
 */
import type { MessagePort } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { ChangeBus } from '../db/change-bus.js';
import type { Database } from '../db/tables.js';
import type { OpenDatabase } from '../db/open.js';
import { createConversionStore, createEventLogClient, type ConversionStore, type EventLogClient, type LogNotice, type LogPort, type StoredEvent } from '../events/index.js';
import type { RedirectModule } from '../redirect/module.js';
import type { FromApi, RedirectStats, ThreadChange, ToApi } from './messages.js';

/** The API thread's three ports. */
export interface ApiThreadPorts {
  /** The worker's own port to the front (`parentPort`). */
  front: MessagePort;
  /** The log thread's second client. */
  log: MessagePort;
  /** Link changes, to the front. */
  changes: MessagePort;
  /** The redirect's counters when the thread started. */
  stats: RedirectStats;
}

/** The event log over the port the front obtained from the log thread (startEventLog's shape). */
export function connectEventLog(
  port: MessagePort,
  options: {
    database: OpenDatabase;
    kind: 'sql' | 'duckdb' | 'clickhouse';
    listeners: { settings(): unknown; watch(changed: () => void): void };
    onCounted(written: readonly string[]): void;
  },
): { events: EventLogClient; conversions: ConversionStore<Kysely<Database>>; opened: Promise<void>; close(): Promise<void> } {
  const onNotice = (notice: LogNotice) => {
    if (notice.notice === 'counted') options.onCounted(notice.written);
  };
  const events = createEventLogClient(port as unknown as LogPort, { onNotice });
  const settingsChanged = () => events.setListenerSettings(options.listeners.settings());
  settingsChanged();
  options.listeners.watch(settingsChanged);
  return {
    events,
    conversions: createConversionStore(options.kind, options.database, events),
    opened: events.describe().then(() => undefined),
    // The front closes the log itself once this thread has stopped: only this client ends.
    async close() {
      port.close();
    },
  };
}

/** The redirect module as the API thread sees it: its calls answered by the front. */
export function createFrontRedirect(ports: ApiThreadPorts): RedirectModule {
  const { front } = ports;
  let stats = ports.stats;
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  front.on('message', (m: ToApi) => {
    if (m.type === 'stats') stats = m.stats;
    if (m.type !== 'reply') return;
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.value);
  });
  const call = <T>(method: 'findClick' | 'flushClicks', args: unknown[]) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      front.postMessage({ type: 'call', id, method, args } satisfies FromApi);
    });
  const none = async () => undefined;
  return {
    tryHandle: () => false,
    clicks: { findClick: (workspaceId: string, clickId: string) => call<StoredEvent | undefined>('findClick', [workspaceId, clickId]) },
    lifecycle: {},
    flushClicks: () => call<void>('flushClicks', []),
    startWriter: none,
    beginShutdown: () => undefined,
    spillNow: () => 0,
    replaySpilledClicks: async () => ({ replayed: 0, kept: [], written: 0, alreadyStored: 0 }),
    geoReady: none,
    stats: () => stats,
  } as unknown as RedirectModule;
}

/**
 * Sends this thread's link and domain changes, and saved bio pages, to the front's caches; and
 * delivers here what the front heard from other processes (PostgreSQL's change relay runs there).
 */
export function forwardChanges(bus: ChangeBus, port: MessagePort): { bioSaved(): void } {
  let fromFront = false;
  bus.subscribe((change) => {
    if (!fromFront) port.postMessage(change satisfies ThreadChange);
  });
  port.on('message', (change: ThreadChange) => {
    if (change.type === 'bio') return;
    if (change.type === 'resync') return bus.resync();
    fromFront = true;
    try {
      bus.deliver(change);
    } finally {
      fromFront = false;
    }
  });
  return { bioSaved: () => port.postMessage({ type: 'bio' } satisfies ThreadChange) };
}

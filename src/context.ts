/**
 * What every module is built from. `app.ts` creates it once; modules receive it (plus the
 * services of the modules they depend on) and never reach for globals or `process.env`.
 */
import type { Config } from './config.js';
import type { OpenDatabase } from './db/open.js';
import type { ChangeBus } from './db/change-bus.js';
import type { WorkspaceService } from './workspaces/service.js';
import type { Kysely } from 'kysely';
import type { Database } from './db/tables.js';
import type { ConversionStore, EventLogClient, SqlRunner } from './events/index.js';
import type { Outbox } from './outbox/outbox.js';
import type { ClientAddress } from './http/client-address.js';
import type { Traces } from './tracing/traces.js';

export interface AppContext {
  config: Config;
  database: OpenDatabase;
  /** The client's address under TRUST_PROXY, for the redirect (Fastify's routes read `request.clientAddress`). */
  clientAddress: ClientAddress;
  bus: ChangeBus;
  workspaces: WorkspaceService;
  /**
   * The event log (src/events/): a client of the log thread, which owns the store `EVENTS_URL`
   * selects (src/events/log/). Modules read, aggregate and erase through the `EventLog`
   * interface; the click writer sends its batches (`appendRawClicks`).
   */
  events: EventLogClient;
  /**
   * The events' share in the metadata database, on this thread: leads and sales in the caller's
   * transaction, the look-ups conversions need, a customer's erasure; `afterCommit()` once the
   * transaction committed.
   */
  conversions: ConversionStore<Kysely<Database>>;
  /**
   * Where long reads run (a worker thread with its own connection on a SQLite file): the event
   * store's aggregates and the analytics' look-ups of links, tags and customers.
   */
  reader: SqlRunner;
  /** Clock, replaceable in tests. */
  now: () => number;
  /** Domain events: ask `wants(type)`, `write` in the change's transaction, `nudge()` after commit (outbox/outbox.ts). */
  outbox: Outbox;
  /** Spans of this thread (src/tracing/); `NO_TRACES`, which does nothing, unless tracing is on. */
  traces: Traces;
}

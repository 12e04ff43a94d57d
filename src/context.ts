/**
 * What every module is built from. `app.ts` creates it once; modules receive it (plus the
 * services of the modules they depend on) and never reach for globals or `process.env`.
 */
import type { ClickColumn } from './events/column/journal-feed.js';
import type { Config } from './config.js';
import type { OpenDatabase } from './db/open.js';
import type { ChangeBus } from './db/change-bus.js';
import type { WorkspaceService } from './workspaces/service.js';
import type { Kysely } from 'kysely';
import type { Database } from './db/tables.js';
import type { EventStore } from './events/event-store.js';
import type { SqlEventStore } from './events/sql/store.js';
import type { SqlRunner } from './events/sql/sql-runner.js';
import type { Outbox } from './events/outbox.js';
import type { ClientAddress } from './http/client-address.js';

export interface AppContext {
  config: Config;
  database: OpenDatabase;
  /** The client's address under TRUST_PROXY, for the redirect (Fastify's routes read `request.clientAddress`). */
  clientAddress: ClientAddress;
  bus: ChangeBus;
  workspaces: WorkspaceService;
  /**
   * The event log (src/events/): the store `EVENTS_URL` selects (the SQL store, or the column
   * store, src/events/column/). Modules append, read and erase through the `EventStore` interface.
   */
  events: EventStore<Kysely<Database>>;
  /**
   * The SQL event store, which the click writer (redirect/) writes through with its writer and
   * fold watermark. The same object as `events` when `EVENTS_URL=sql`.
   */
  sqlEvents: SqlEventStore;
  /**
   * With the embedded column store (DuckDB): its engine, to which the click writer hands its
   * batches as CSV files through the click journal (events/column/click-journal.ts). Absent: the
   * click writer writes the SQL store (and, with ClickHouse, its clicks are moved from there).
   */
  clickColumn?: { engine: ClickColumn; batchDir: string };
  /**
   * Where long reads run (a worker thread with its own connection on a SQLite file): the event
   * store's aggregates and the analytics' look-ups of links, tags and customers.
   */
  reader: SqlRunner;
  /** Clock, replaceable in tests. */
  now: () => number;
  /** Domain events: ask `wants(type)`, `write` in the change's transaction, `nudge()` after commit (events/outbox.ts). */
  outbox: Outbox;
}

/** A module's lifecycle hooks, called by app.ts at start and at shutdown. */
export interface Lifecycle {
  start?(): Promise<void> | void;
  /** Called after the server stopped accepting requests; must flush anything buffered. */
  close?(): Promise<void> | void;
}

/**
 * What every module is built from. `app.ts` creates it once; modules receive it (plus the
 * services of the modules they depend on) and never reach for globals or `process.env`.
 */
import type { Config } from './config.js';
import type { OpenDatabase } from './db/open.js';
import type { ChangeBus } from './db/change-bus.js';
import type { WorkspaceService } from './workspaces/service.js';
import type { SqlEventStore } from './events/sql/store.js';
import type { SqlRunner } from './events/sql/sql-runner.js';
import type { Outbox } from './events/outbox.js';

export interface AppContext {
  config: Config;
  database: OpenDatabase;
  bus: ChangeBus;
  workspaces: WorkspaceService;
  /**
   * The event log (src/events/). Modules that only append and read use it through the
   * `EventStore` interface; the click writer also uses the SQL store's writer and fold watermark.
   */
  events: SqlEventStore;
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

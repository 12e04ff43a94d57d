/**
 * What every module is built from. `app.ts` creates it once; modules receive it (plus the
 * services of the modules they depend on) and never reach for globals or `process.env`.
 */
import type { Config } from './config.js';
import type { OpenDatabase } from './db/open.js';
import type { ChangeBus } from './db/change-bus.js';
import type { WorkspaceService } from './workspaces/service.js';
import type { EventWriter } from './analytics/event-writer.js';
import type { RollupHorizon } from './analytics/horizon.js';
import type { Outbox } from './events/outbox.js';

export interface AppContext {
  config: Config;
  database: OpenDatabase;
  bus: ChangeBus;
  workspaces: WorkspaceService;
  events: EventWriter;
  /** How far the rollups count clicks: moved by the click writer, read by analytics. */
  horizon: RollupHorizon & { update(foldedBefore: number | null): void };
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

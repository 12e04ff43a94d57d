/**
 * The event log an import writes its events through: the running app's (tests, benchmarks: its
 * `ctx.events` and `ctx.conversions`), or one the command opens for its run on the store
 * `EVENTS_URL` names, served on this thread over the same port protocol as the app's log thread,
 * with the app's fold listeners. A DuckDB event file belongs to one process: while a server holds
 * it, opening it fails with the reason (stop the server for `import api --events`).
 *
 * @example
 * const events = await openImportEventLog(database, config);
 * try { … events.log.appendClicks(batchId, rows) … } finally { await events.close(); } // counted on close
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import type { Database } from '../db/tables.js';
import { eventStoreKind, startEventLog, type ConversionStore, type EventLogClient } from '../events/index.js';

export interface ImportEventLog {
  log: Pick<EventLogClient, 'appendClicks' | 'existingClickIds' | 'fold'>;
  conversions: ConversionStore<Kysely<Database>>;
}

/** Opens the installation's event log for one import; `close` counts what it stored and closes it. */
export async function openImportEventLog(database: OpenDatabase, config: Config, onLog?: (line: string) => void): Promise<ImportEventLog & { close(): Promise<void> }> {
  const started = startEventLog({
    config,
    database,
    kind: eventStoreKind(config, database),
    // A command has no redirect to keep the thread free for: the log is served on this thread.
    inThread: true,
    listeners: { module: new URL('../click-listeners/index.js', import.meta.url), settings: () => undefined, watch: () => undefined },
    onCounted: () => undefined,
    onLog: (level, msg) => {
      if (level !== 'info') onLog?.(`event log: ${msg}`);
    },
  });
  try {
    await started.opened;
  } catch (err) {
    await started.close();
    throw err;
  }
  return { log: started.events, conversions: started.conversions, close: () => started.close() };
}

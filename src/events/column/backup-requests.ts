/**
 * Backups of the DuckDB event file for `waymark backup` (cli/backup.ts). DuckDB lets one process
 * open a file, so while a server runs the command cannot read it: it leaves a request in the
 * metadata database's `event_backup_requests` (migration 0017) and waits; the server's column
 * lifecycle (lifecycle.ts) looks for requests every second and writes the copy (one DuckDB
 * snapshot, `DuckDbEngine.backupTo`) to `<file>.partial`, renamed to `<file>` once complete, then
 * marks the request done. With no server running, the command opens the file and copies it itself.
 *
 * @example
 * await serveBackupRequests(db, engine);                          // server, on its timer
 * const events = await requestBackup(db, '/backups/w.events.duckdb'); // command line
 */
import { randomBytes } from 'node:crypto';
import { existsSync, renameSync, rmSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';

/** A backup of the event file asked for by the command line (migration 0017). */
export interface EventBackupRequestsTable {
  id: string;
  /** Where the copy goes (the command's `<file>` with `.events.duckdb`). */
  path: string;
  requested_at: number;
  done_at: number | null;
  /** Events in the copy. */
  events: number | null;
  error: string | null;
}

type Tables = Database & { event_backup_requests: EventBackupRequestsTable };
const withTable = (db: Kysely<Database>) => db.withTables<{ event_backup_requests: EventBackupRequestsTable }>() as unknown as Kysely<Tables>;

/** What a backup needs of the engine. */
export interface EventFileBackup {
  backupTo(file: string): Promise<number>;
}

/** Writes `file` through `.partial` (a file at `file` is always whole); returns the events copied. */
export async function backupEventFile(engine: EventFileBackup, file: string): Promise<number> {
  const partial = `${file}.partial`;
  rmSync(partial, { force: true });
  try {
    const events = await engine.backupTo(partial);
    renameSync(partial, file);
    return events;
  } finally {
    rmSync(partial, { force: true });
    rmSync(`${partial}.wal`, { force: true });
  }
}

/** Server side: takes the requests not answered yet; returns how many it answered. */
export async function serveBackupRequests(database: Kysely<Database>, engine: EventFileBackup): Promise<number> {
  const db = withTable(database);
  const pending = await db.selectFrom('event_backup_requests').select(['id', 'path']).where('done_at', 'is', null).execute();
  for (const r of pending) {
    let result: { events: number | null; error: string | null };
    try {
      result = { events: await backupEventFile(engine, r.path), error: null };
    } catch (err) {
      result = { events: null, error: err instanceof Error ? err.message : String(err) };
    }
    await db.updateTable('event_backup_requests').set({ done_at: Date.now(), ...result }).where('id', '=', r.id).execute();
  }
  return pending.length;
}

/** Command-line side: asks the running server for a copy at `file` and waits for it; returns the events copied. */
export async function requestBackup(database: Kysely<Database>, file: string, options: { timeoutMs?: number; pollMs?: number } = {}): Promise<number> {
  const db = withTable(database);
  const id = randomBytes(8).toString('hex');
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  await db.insertInto('event_backup_requests').values({ id, path: file, requested_at: Date.now(), done_at: null, events: null, error: null }).execute();
  try {
    for (;;) {
      const r = await db.selectFrom('event_backup_requests').select(['done_at', 'events', 'error']).where('id', '=', id).executeTakeFirst();
      if (r?.done_at != null) {
        if (r.error) throw new Error(`the server could not copy the event file: ${r.error}`);
        if (!existsSync(file)) throw new Error(`the server reported the event file copied, but ${file} is missing`);
        return Number(r.events);
      }
      if (Date.now() > deadline) throw new Error('the event file is held by another process, which did not answer the backup request (is it a Waymark server of this version, with EVENTS_URL=duckdb?)');
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
    }
  } finally {
    await db.deleteFrom('event_backup_requests').where('id', '=', id).execute();
  }
}

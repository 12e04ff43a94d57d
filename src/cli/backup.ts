/**
 * `waymark backup <file>` and `waymark restore <file>` (src/backup/sqlite.ts). They run before
 * the CLI opens the database: a restore must not count the CLI's own connection as a user.
 * PostgreSQL installations are pointed to pg_dump and pg_restore.
 *
 * With the DuckDB event store (the default on SQLite) the event file is backed up beside the
 * database's copy (`<file>` → `<file minus extension>.events.duckdb`): by the running server, which
 * holds the file (events/column/backup-requests.ts), or by this command when none runs. The
 * database is copied first: the event file's copy, a moment later, holds every click the
 * database's copy counts (and perhaps a few newer ones, whose link counters the database's copy
 * does not include yet).
 */
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { isPostgresUrl, localFilesFor, openDatabase, sqliteFileFromUrl } from '../db/open.js';
import { backupSqlite, restoreSqlite, BackupError } from '../backup/sqlite.js';
import { backupEventFile, duckDbPathFor, eventsUrlFor, isDuckDbLocked, openDuckDbFile, requestBackup } from '../events/index.js';

/** Where the event file's copy of a backup at `file` goes: the rule of the event file beside the database. */
export function eventBackupFile(file: string): string {
  return duckDbPathFor('duckdb', localFilesFor(`file:${file}`));
}

async function backupEvents(databaseUrl: string, source: string, dest: string): Promise<number> {
  try {
    const engine = await openDuckDbFile({ path: source });
    try {
      return await backupEventFile(engine, dest);
    } finally {
      await engine.close();
    }
  } catch (err) {
    if (!isDuckDbLocked(err)) throw err;
  }
  // A server holds the file: it writes the copy.
  const database = await openDatabase(databaseUrl, { migrate: false });
  try {
    return await requestBackup(database.db, dest);
  } finally {
    await database.close();
  }
}

export const BACKUP_USAGE = `  backup <file> [--force]
        SQLite: a consistent copy of the database, safe while the server runs (--force replaces <file>)
  restore <file>
        SQLite: replace the database by a backup; refused while a server or any program has it open
        (PostgreSQL: use pg_dump and pg_restore)
`;

const POSTGRES = (verb: string) =>
  `${verb} works on a SQLite installation; this one runs on PostgreSQL: use pg_dump -Fc "$DATABASE_URL" > waymark.dump to back it up and pg_restore --clean --if-exists -d "$DATABASE_URL" waymark.dump to restore it (docs/backups.md)`;

export async function runBackupCommand(input: { group: 'backup' | 'restore'; file?: string; databaseUrl: string; eventsUrl?: string; force?: boolean; out: (line: string) => void }): Promise<number> {
  if (isPostgresUrl(input.databaseUrl)) throw new Error(POSTGRES(input.group));
  const path = sqliteFileFromUrl(input.databaseUrl);
  if (path === ':memory:') throw new Error(`${input.group} needs a database file; DATABASE_URL names an in-memory database`);
  if (!input.file) throw new Error(`the file is required: waymark ${input.group} <file>`);
  // A SQLite file: served by one process.
  const url = eventsUrlFor(input.eventsUrl, { singleProcess: true });
  const eventFile = url.startsWith('duckdb') ? duckDbPathFor(url, localFilesFor(input.databaseUrl)) : undefined;
  const eventCopy = eventBackupFile(input.file);
  if (input.group === 'backup') {
    if (eventFile && existsSync(eventCopy) && !input.force) throw new BackupError(`${eventCopy} exists; choose another file or pass --force to replace it`);
    const r = await backupSqlite(path, input.file, { overwrite: input.force });
    input.out(`Backed up ${path} to ${input.file}: ${r.pages} pages, ${r.bytes} bytes in ${r.ms} ms`);
    if (eventFile && existsSync(eventFile)) {
      const started = Date.now();
      const events = await backupEvents(input.databaseUrl, eventFile, eventCopy);
      input.out(`Backed up the event file ${eventFile} to ${eventCopy}: ${events} events in ${Date.now() - started} ms`);
    }
  } else {
    // The event file's copy is checked first; the database's restore is refused while a server runs.
    if (eventFile && existsSync(eventCopy)) {
      const engine = await openDuckDbFile({ path: eventCopy }).catch((err) => {
        throw new BackupError(`${eventCopy} is not a DuckDB event file: ${(err as Error).message}`);
      });
      await engine.close();
    }
    const r = restoreSqlite(input.file, path);
    input.out(`Restored ${path} from ${input.file} (${r.bytes} bytes)`);
    if (eventFile && existsSync(eventCopy)) {
      const partial = `${eventFile}.restoring`;
      copyFileSync(eventCopy, partial);
      rmSync(`${eventFile}.wal`, { force: true });
      renameSync(partial, eventFile);
      input.out(`Restored the event file ${eventFile} from ${eventCopy}`);
    } else if (eventFile) {
      input.out(`No event file copy at ${eventCopy}: the event file ${eventFile} was left as it is`);
    }
  }
  return 0;
}

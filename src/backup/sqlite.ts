/**
 * Backups of a SQLite installation, taken while it runs, and their restore.
 *
 * - `backupSqlite` copies the database with SQLite's online backup (better-sqlite3's
 *   `db.backup()`), all pages in one step: the copy is the database as one read transaction saw
 *   it, every transaction committed before that step began (those still in the write-ahead log
 *   too), none after. In WAL mode the read does not stop the server's writers. It goes to
 *   `<file>.partial` first and is renamed when complete and checked, so a file at `<file>` is
 *   always a whole backup. The copy is switched to the rollback journal (`journal_mode =
 *   DELETE`): a WAL-mode file opened read-only to check it leaves `-wal`/`-shm` files beside it,
 *   and a backup is one file (the server puts a restored one back into WAL mode when it opens it).
 * - `restoreSqlite` refuses while any connection has the database open (`databaseInUse`), then
 *   checks the backup and moves a copy of it into place.
 *
 * "In use" is asked of SQLite's own locks: in WAL mode every open connection holds a shared lock
 * on the database file for as long as it is open, so a connection that asks for the file
 * exclusively (`locking_mode = EXCLUSIVE`, then a write transaction) is refused while a server,
 * a CLI command or any other program has it open.
 *
 * @example
 * await backupSqlite('/var/lib/waymark/waymark.db', '/backups/waymark-2026-11-24.db');
 * if (!databaseInUse(path)) await restoreSqlite('/backups/waymark-2026-11-24.db', path);
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { sqliteDialect } from '../db/dialect.js';

export class BackupError extends Error {}

export interface BackupResult {
  /** Database pages copied. */
  pages: number;
  bytes: number;
  ms: number;
}

/** Checks a database file: SQLite's integrity check, and that it holds a Waymark schema. */
export function checkBackupFile(file: string): void {
  if (!existsSync(file)) throw new BackupError(`${file} does not exist`);
  let db: SQLite.Database;
  try {
    db = new SQLite(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupError(`${file} is not a SQLite database: ${(err as Error).message}`);
  }
  try {
    const result = db.pragma('integrity_check', { simple: true });
    if (result !== 'ok') throw new BackupError(`${file} fails SQLite's integrity check: ${String(result)}`);
    const migrations = db.prepare("select name from sqlite_master where type = 'table' and name = 'waymark_migrations'").get();
    if (!migrations) throw new BackupError(`${file} is not a Waymark database (no waymark_migrations table)`);
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${file} cannot be read as a database: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/** Copies the live database at `source` to `dest` (refused when `dest` exists, unless `overwrite`). */
export async function backupSqlite(source: string, dest: string, options: { overwrite?: boolean } = {}): Promise<BackupResult> {
  if (!existsSync(source)) throw new BackupError(`no database at ${source}`);
  if (existsSync(dest) && !options.overwrite) throw new BackupError(`${dest} exists; choose another file or pass --force to replace it`);
  const partial = `${dest}.partial`;
  rmSync(partial, { force: true });
  const started = Date.now();
  const db = new SQLite(source, { fileMustExist: true });
  let pages = 0;
  try {
    db.pragma('busy_timeout = 5000');
    // All remaining pages in the next step: one read transaction, so the copy is one moment's
    // database. Copied in several steps, a write by the server between two would restart it.
    const progress = await db.backup(partial, { progress: () => 0x7fffffff });
    pages = progress.totalPages;
  } catch (err) {
    rmSync(partial, { force: true });
    throw new BackupError(`backup failed: ${(err as Error).message}`);
  } finally {
    db.close();
  }
  try {
    const copy = new SQLite(partial, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    checkBackupFile(partial);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${partial}${suffix}`, { force: true });
  }
  renameSync(partial, dest);
  return { pages, bytes: statSync(dest).size, ms: Date.now() - started };
}

/** True when another connection (a running server, any program) has the database open. */
export function databaseInUse(file: string): boolean {
  if (!existsSync(file)) return false;
  const db = new SQLite(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // A write transaction takes the exclusive lock; `rollback` keeps the database unchanged.
    db.exec('begin exclusive; rollback;');
    return false;
  } catch (err) {
    if (sqliteDialect.isBusy(err) || (err as { code?: string }).code === 'SQLITE_LOCKED') return true;
    throw err;
  } finally {
    // The last connection to close folds the write-ahead log into the file and removes it.
    db.close();
  }
}

/**
 * Replaces the database at `target` by the backup at `file`. Refused when the database is in
 * use; the backup is checked first; the previous database's leftover log files are removed so
 * they are never applied to the restored one.
 */
export function restoreSqlite(file: string, target: string): { bytes: number } {
  checkBackupFile(file);
  if (databaseInUse(target)) {
    throw new BackupError(`the database ${target} is in use (a running Waymark server or another program has it open); stop it, then restore`);
  }
  mkdirSync(dirname(target), { recursive: true });
  const incoming = `${target}.restoring`;
  copyFileSync(file, incoming);
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${target}${suffix}`, { force: true });
  renameSync(incoming, target);
  return { bytes: statSync(target).size };
}

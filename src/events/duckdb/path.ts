/**
 * Where `EVENTS_URL=duckdb` keeps the event file: beside the SQLite file (`data/waymark.db` →
 * `data/waymark.events.duckdb`), in memory beside an in-memory SQLite database, and in
 * `./data/events.duckdb` beside PostgreSQL; `duckdb:<path>` names the file (or `:memory:`).
 *
 * @example
 * duckDbPathFor('duckdb', localFilesFor('file:/srv/data/waymark.db')); // → '/srv/data/waymark.events.duckdb'
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { localFile, type LocalFiles } from '../../db/open.js';

/** `localFiles`: the database's (`OpenDatabase.localFiles`; none for an in-memory one). */
export function duckDbPathFor(eventsUrl: string, localFiles: LocalFiles | undefined): string {
  if (eventsUrl.startsWith('duckdb:')) return eventsUrl.slice('duckdb:'.length);
  return localFiles ? localFile(localFiles, 'events.duckdb', true) : ':memory:';
}

/** Creates the folder of a file path (DuckDB creates the file, not its folder). */
export function ensureFolder(path: string): void {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
}

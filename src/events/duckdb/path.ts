/**
 * Where `EVENTS_URL=duckdb` keeps the event file: beside the SQLite file (`data/waymark.db` →
 * `data/waymark.events.duckdb`), in memory beside an in-memory SQLite database, and in
 * `./data/events.duckdb` beside PostgreSQL; `duckdb:<path>` names the file (or `:memory:`).
 *
 * @example
 * duckDbPathFor('duckdb', { url: 'file:./data/waymark.db', sqlitePath: '/srv/data/waymark.db' }); // → '/srv/data/waymark.events.duckdb'
 */
import { mkdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { OpenDatabase } from '../../db/open.js';

export function duckDbPathFor(eventsUrl: string, database: Pick<OpenDatabase, 'url' | 'sqlitePath'>): string {
  if (eventsUrl.startsWith('duckdb:')) return eventsUrl.slice('duckdb:'.length);
  if (database.sqlitePath) {
    const file = database.sqlitePath;
    return join(dirname(file), `${basename(file, extname(file))}.events.duckdb`);
  }
  if (/^postgres(ql)?:/.test(database.url)) return resolve('data', 'events.duckdb');
  return ':memory:';
}

/** Creates the folder of a file path (DuckDB creates the file, not its folder). */
export function ensureFolder(path: string): void {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
}

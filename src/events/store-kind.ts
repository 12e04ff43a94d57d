/**
 * Which event store `EVENTS_URL` selects, decided without loading any engine: the main thread and
 * the command-line tools ask this, and only the log thread (or a tool that opens the store) loads
 * the one engine selected (events/open.ts imports it on demand).
 *
 * Unset, `EVENTS_URL` means DuckDB beside a SQLite file and the SQL store on PostgreSQL, whose
 * deployments may run several processes (a DuckDB file belongs to one process: the database's
 * `singleProcess` capability).
 *
 * @example
 * eventStoreKind({ eventsUrl: undefined }, database); // 'duckdb' on a SQLite file
 */
import type { Capabilities } from '../db/open.js';

/** Which store `EVENTS_URL` selected. */
export type EventStoreKind = 'sql' | 'duckdb' | 'clickhouse';

/** Whether `EVENTS_URL` names a ClickHouse server (its HTTP interface). */
export const isClickHouseUrl = (url: string): boolean => /^(clickhouse|clickhouses|https?):\/\//i.test(url);

/** The event store an unset `EVENTS_URL` means for this database: DuckDB beside SQLite, the SQL store on PostgreSQL. */
export function eventsUrlFor(eventsUrl: string | undefined, capabilities: Pick<Capabilities, 'singleProcess'>): string {
  if (eventsUrl) return eventsUrl;
  return capabilities.singleProcess ? 'duckdb' : 'sql';
}

/** The kind of store `EVENTS_URL` (or its default for this database) selects. */
export function eventStoreKind(config: { eventsUrl?: string }, database: { capabilities: Pick<Capabilities, 'singleProcess'> }): EventStoreKind {
  const url = eventsUrlFor(config.eventsUrl, database.capabilities);
  return url === 'sql' ? 'sql' : isClickHouseUrl(url) ? 'clickhouse' : 'duckdb';
}

/** Whether an error is DuckDB's refusal of a file another process holds. */
export const isDuckDbLocked = (err: unknown): boolean => /could not set lock|conflicting lock/i.test(String((err as Error)?.message));

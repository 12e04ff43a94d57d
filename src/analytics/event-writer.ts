/**
 * The write side of the event log, shared by the click flush (redirect) and the track endpoints.
 * Writes go through a transaction handed in by the caller, so counters, events and the analytics
 * rollups commit together or not at all. Every event must be written through here: a row
 * inserted elsewhere would be missing from the rollups that answer most analytics queries.
 */
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, EventsTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { applyRollupDeltas, rollupDeltas, type StatementCache } from './rollup-deltas.js';

export type StoredEvent = Insertable<EventsTable>;

export interface EventWriter {
  /**
   * Appends events and adds them to the rollups inside the caller's transaction. Given the plain
   * database instead of a transaction, it opens one of its own.
   */
  append(trx: Transaction<Database> | Kysely<Database>, events: readonly StoredEvent[]): Promise<void>;
}

/** SQLite allows 32766 bound variables; 40 columns × 500 rows stays well below, PostgreSQL's 65535 too. */
const CHUNK = 500;

async function write(trx: Kysely<Database>, events: readonly StoredEvent[], cache: StatementCache): Promise<void> {
  for (let i = 0; i < events.length; i += CHUNK) {
    await trx.insertInto('events').values(events.slice(i, i + CHUNK)).execute();
  }
  await applyRollupDeltas(trx, rollupDeltas(events), cache);
}

export function createEventWriter(_dialect: Dialect): EventWriter {
  const cache: StatementCache = new Map();
  return {
    async append(trx, events) {
      if (!events.length) return;
      if (trx.isTransaction) return write(trx, events, cache);
      await trx.transaction().execute((t) => write(t, events, cache));
    },
  };
}

/**
 * The write side of the event log, shared by the click flush (redirect) and the track endpoints.
 * Writes go through a transaction handed in by the caller, so counters, events and any
 * derived data (rollups) commit together or not at all.
 */
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, EventsTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';

export type StoredEvent = Insertable<EventsTable>;

export interface EventWriter {
  /** Appends events inside the caller's transaction. */
  append(trx: Transaction<Database> | Kysely<Database>, events: readonly StoredEvent[]): Promise<void>;
}

/** SQLite allows 32766 bound variables; 40 columns × 500 rows stays well below, PostgreSQL's 65535 too. */
const CHUNK = 500;

export function createEventWriter(_dialect: Dialect): EventWriter {
  return {
    async append(trx, events) {
      for (let i = 0; i < events.length; i += CHUNK) {
        await trx.insertInto('events').values(events.slice(i, i + CHUNK)).execute();
      }
    },
  };
}

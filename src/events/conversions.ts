/**
 * The main thread's `ConversionStore` for the store `EVENTS_URL` selects: the SQL store itself
 * (one database holds everything), or a column store's metadata share, which tells the log what
 * committed through `log` (column/conversions.ts).
 *
 * @example
 * const conversions = createConversionStore('duckdb', database, log.events);
 */
import type { Kysely } from 'kysely';
import type { OpenDatabase } from '../db/open.js';
import type { Database } from '../db/tables.js';
import type { ConversionStore, EventLog } from './event-store.js';
import type { EventStoreKind } from './store-kind.js';
import { createSqlEventStore } from './sql/store.js';
import { createColumnConversions } from './column/conversions.js';
import { assertConversions } from './rows.js';

export function createConversionStore(kind: EventStoreKind, database: Pick<OpenDatabase, 'db' | 'dialect'>, log: Pick<EventLog, 'copyConversions' | 'applyErasures'>): ConversionStore<Kysely<Database>> {
  return kind === 'sql' ? sqlConversions(createSqlEventStore({ database })) : createColumnConversions({ database, log, copiesCredits: kind === 'duckdb' });
}

/** The SQL store as a `ConversionStore`: the same store, its `append` for leads and sales only. */
export function sqlConversions(store: ConversionStore<Kysely<Database>>): ConversionStore<Kysely<Database>> {
  return {
    ...store,
    append(events, tx) {
      assertConversions(events);
      return store.append(events, tx);
    },
  };
}

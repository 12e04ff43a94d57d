/**
 * The one door of the event store and the event log: every file outside src/events/ imports from
 * here and nowhere else below this folder (door.test.ts fails otherwise), so what lies behind it
 * (engines, the log's protocol, the fold, upgrades) can change without touching its users.
 *
 * @example
 * import { startEventLog, type ConversionStore, type EventLog, type StoredEvent } from '../events/index.js';
 */

// Events: rows, reads and the two interfaces (the log's, the conversions').
export { type AggregateSpec, type BuyerConversions, type CreditBackfillState, type ConversionTouchRow, type DimColumn, type DimFilter, type EventKind, type ConversionStore, type EventLog, type EventRow, type ForgetResult, type LinkFilters, type LinkScope, type MatchMode, type MergedRow, type MetadataMatch, type Metrics, type StoredCredit, type StoredEvent, type ValueFilter } from './event-store.js';
export { type AttributionSource, clickEvent, conversionEvent, dimensionsOf, EVENT_DIMENSIONS, type EventDimensions } from './rows.js';
export { buildScope, hasLinkFilter, MAX_INLINE_IDS } from './link-scope.js';
export { createLinkCounters, erasedTotals, linkBumps, type LinkCounters, workspaceBumps } from './counters.js';

// The event log: its start, its client, its listeners' contract, the raw clicks it is sent.
export { startEventLog } from './log/start.js';
export { createConversionStore } from './conversions.js';
export { createEventLogClient, type EventLogClient, type LogPort } from './log/client.js';
export { type LogMemory, type LogNotice } from './log/protocol.js';
export { type ClickListener, type ClickListenerModule } from './log/fold.js';
export { IMPORTED_BATCH_PREFIX } from './click-log.js';
export { type RawClick } from './log/raw-click.js';
export { type ClickRing, type ClickRingOptions, createClickRing, ipv4ToInt, type RingBatch } from './log/click-ring.js';
export { createRingReader } from './log/ring-reader.js';
export { type ClickColumns } from './batch/click-columns.js';
export { columnsOf, rowsOf } from './batch/wide-rows.js';

// Which store EVENTS_URL selects; opening it.
export { eventStoreKind, eventsUrlFor, isDuckDbLocked } from './store-kind.js';
export { type EventStores, openEventStores } from './open.js';
export { duckDbPathFor } from './duckdb/path.js';

// Analytics' reader and the SQL store's parts that reads and tests share.
export { createSqlRunner, type SqlRunner } from './sql/sql-runner.js';
export { stripQuery } from './sql/rollup-spec.js';
export { createSqlEventStore } from './sql/store.js';
export { applyRollupDeltas, rollupDeltas } from './sql/rollup-deltas.js';
export { foldClicksLeftUnfolded } from './upgrades/fold-clicks.js';

// Retention, backups of the event file.
export { createRetention } from './retention-module.js';
export { backupEventFile, requestBackup } from './column/backup-requests.js';
export { type ColumnEventStore } from './column/store.js';
export { openDuckDbFile } from './duckdb/open-file.js';

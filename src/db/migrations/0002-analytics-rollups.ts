/**
 * Analytics rollups (issue 6) and the indexes the analytics queries need:
 * - `analytics_hourly` and `analytics_daily` (see src/analytics/rollup-spec.ts), clustered like
 *   the events on SQLite, filled from any events already stored;
 * - a partial index over leads and sales only, so a lead or sale list or aggregate never walks a
 *   busy workspace's clicks (and costs nothing on the click flush);
 * - a partial index of disabled links per workspace, read by every workspace-wide query.
 */
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { applyRollupDeltas, rollupDeltas } from '../../events/sql/rollup-deltas.js';
import type { StoredEvent } from '../../events/sql/event-writer.js';

const BACKFILL_PAGE = 5000;

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const big = dialect.bigIntType;
  type Builder = CreateTableBuilder<any, any>;
  const metrics = (t: Builder): Builder =>
    t
      .addColumn('clicks', big, (c) => c.notNull().defaultTo(0))
      .addColumn('leads', big, (c) => c.notNull().defaultTo(0))
      .addColumn('sales', big, (c) => c.notNull().defaultTo(0))
      .addColumn('sale_amount', big, (c) => c.notNull().defaultTo(0));

  let hourly: Builder = db.schema
    .createTable('analytics_hourly')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('bucket', big, (c) => c.notNull());
  hourly = metrics(hourly).addPrimaryKeyConstraint('analytics_hourly_pk', ['workspace_id', 'bucket']);
  if (dialect.clusteredTableSuffix) hourly = hourly.modifyEnd(dialect.clusteredTableSuffix);
  await hourly.execute();

  let daily: Builder = db.schema
    .createTable('analytics_daily')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('bucket', big, (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull());
  for (const k of ['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8']) daily = daily.addColumn(k, 'text', (c) => c.notNull().defaultTo(''));
  daily = metrics(daily).addPrimaryKeyConstraint('analytics_daily_pk', ['workspace_id', 'dim', 'bucket', 'key_hash']);
  if (dialect.clusteredTableSuffix) daily = daily.modifyEnd(dialect.clusteredTableSuffix);
  await daily.execute();

  await db.schema
    .createIndex('events_conversions')
    .on('events')
    .columns(['workspace_id', 'kind', 'timestamp'])
    .where(sql.ref('kind'), '<>', 'click')
    .execute();
  await db.schema
    .createIndex('links_workspace_disabled')
    .on('links')
    .columns(['workspace_id', 'id'])
    .where(sql.ref('disabled_at'), 'is not', null)
    .execute();

  // Events written before this migration (keyset pages, so memory stays flat).
  let after: { workspace_id: string; timestamp: number; id: string } | undefined;
  for (;;) {
    let q = db.selectFrom('events').selectAll().orderBy('workspace_id').orderBy('timestamp').orderBy('id').limit(BACKFILL_PAGE);
    if (after) {
      const a = after;
      q = q.where((eb) => eb(eb.refTuple('workspace_id', 'timestamp', 'id'), '>', eb.tuple(a.workspace_id, a.timestamp, a.id)));
    }
    const rows = (await q.execute()) as StoredEvent[];
    if (!rows.length) break;
    await applyRollupDeltas(db, rollupDeltas(rows));
    const last = rows[rows.length - 1]!;
    after = { workspace_id: last.workspace_id, timestamp: Number(last.timestamp), id: last.id };
    if (rows.length < BACKFILL_PAGE) break;
  }
}

/**
 * `credits_links`: a covering index of the stored credits for analytics by link
 * (events/sql/credits.ts `creditAggregateQuery` grouped by `link_id`, the top-links query): the
 * same prefix as the clustered key (workspace, model, time), then only the columns that query
 * reads. The clustered rows carry every dimension (27 columns, the URLs among them); the range a
 * model's top links read is ~35k of them at 1M events, so reading the narrow index instead is
 * the cheap part of the SQL store's model query (bench/attribution/README.md).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('credits_links').on('credits').columns(['workspace_id', 'model', 'timestamp', 'sale_link_id', 'link_id', 'share', 'cents']).execute();
}

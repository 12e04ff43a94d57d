/**
 * `links.public_stats_conversions`: whether a link's public stats page (dashboard, `/stats/…`)
 * shows leads, sales and revenue besides clicks. Off by default: sharing a link's clicks must not
 * publish its revenue. Not part of the API's link object (its shape is the published one).
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('links').addColumn('public_stats_conversions', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

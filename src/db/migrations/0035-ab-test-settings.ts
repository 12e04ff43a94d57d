/**
 * `ab_test_settings`: a link's A/B test settings and the route its completed test settled on
 * (src/ab-tests/, docs/ab-tests.md), one row per link that has any, deleted with the link. Kept
 * out of `links` because the published link object knows none of it.
 *
 * - `metric` (`leads`, `clicks`, `sales`, `revenue`) and `on_inconclusive` (`keep_splitting`,
 *   `stop`): null means the default (leads; keep splitting).
 * - `route` (`winner`, `split`, `stop`), `route_url` (the winner's URL) and `decided_for` (the
 *   link's `test_completed_at` the route was decided for): written once per completion by the
 *   decider (src/ab-tests/decider.ts); the redirect reads them with the link and applies them only
 *   while `decided_for` equals the link's current completion time.
 *
 * `links_test_completed` (partial: links with a completion time) serves the decider's search
 * for completed tests without a route, so it does not scan every link each pass.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('ab_test_settings')
    .addColumn('link_id', 'text', (c) => c.primaryKey().references('links.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('metric', 'text')
    .addColumn('on_inconclusive', 'text')
    .addColumn('route', 'text')
    .addColumn('route_url', 'text')
    .addColumn('decided_for', dialect.bigIntType)
    .addColumn('decided_at', dialect.bigIntType)
    .addColumn('updated_at', dialect.bigIntType, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('links_test_completed')
    .on('links')
    .column('test_completed_at')
    .where(sql.ref('test_completed_at'), 'is not', null)
    .execute();
}

/**
 * `audit_log` (src/audit/): who changed what in a workspace, written in the transaction of the
 * change. `target_ids` is a JSON array (one id, or a bulk operation's ids); `target` the single
 * id the target filter matches (null for bulk entries, whose ids are in `target_ids`).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('target_ids', 'text', (c) => c.notNull())
    .addColumn('changes', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_workspace_at').on('audit_log').columns(['workspace_id', 'at', 'id']).execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
}

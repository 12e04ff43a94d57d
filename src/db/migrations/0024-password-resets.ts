/**
 * `password_resets` (users/password-resets.ts): one row per "Forgot password?" link mailed. The
 * token is stored hashed; `used_at` makes it single-use, `expires_at` (1 hour) bounds it.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('expires_at', dialect.bigIntType, (c) => c.notNull())
    .addColumn('used_at', dialect.bigIntType)
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}

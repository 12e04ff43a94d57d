/**
 * `users.password_allowed_at`: when an owner allowed an account made by single sign-on (no
 * password) to get one through "Forgot password?" (users/password-access.ts); null: it may not.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_allowed_at', dialect.bigIntType).execute();
}

/**
 * Dashboard users (src/users/): people who log into the web dashboard, apart from API keys.
 *
 * - `users`: `email_key` is the address lower-cased, unique, so `Ann@x.io` and `ann@x.io` are one
 *   account while the address keeps the spelling it was given in `email`. `password_hash` is
 *   `scrypt$N$r$p$salt$hash` (src/users/password.ts).
 * - `memberships`: one row per (user, workspace) with its role (`owner`, `member`, `viewer`).
 * - `sessions`: the login cookie's token is stored only as its SHA-256 (`token_hash`); a session
 *   ends at `expires_at` (slides with use, never past `absolute_expires_at`) or when deleted.
 * - `invitations`: a link an owner hands over; only the SHA-256 of its token is stored.
 * - `setup_tokens`: the one-time first-run address printed while no user exists.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  const ms = dialect.bigIntType;
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'workspace_id'])
    .execute();
  await db.schema.createIndex('memberships_workspace').on('memberships').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('last_seen_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('absolute_expires_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('accepted_at', ms)
    .execute();
  await db.schema.createIndex('invitations_workspace').on('invitations').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('setup_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('used_at', ms)
    .execute();
}

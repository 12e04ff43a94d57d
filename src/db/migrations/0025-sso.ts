/**
 * Single sign-on (src/sso/): `user_identities` links a provider's account (issuer, subject) to a
 * user; `sso_logins` holds a sign-in between its start and the provider's answer (state, nonce,
 * PKCE verifier, for 10 minutes, deleted at first use); sessions learn whether they came from SSO
 * (the ID token, the hint of the provider's logout) and when their user last signed in again.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('user_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .addPrimaryKeyConstraint('user_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('user_identities_user').on('user_identities').column('user_id').execute();
  await db.schema
    .createTable('sso_logins')
    .addColumn('browser_hash', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('next', 'text', (c) => c.notNull())
    .addColumn('reauth_session', 'text')
    .addColumn('created_at', dialect.bigIntType, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_logins_created').on('sso_logins').column('created_at').execute();
  await db.schema.alterTable('sessions').addColumn('sso_id_token', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('reauthenticated_at', dialect.bigIntType).execute();
}

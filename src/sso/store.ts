/**
 * SQL of single sign-on (migration 0025): identities linked to users, and sign-ins in progress
 * (each read by the callbacks that come, and taken, that is deleted, by the one that verifies).
 *
 * @example
 * const store = createSsoStore(db);
 * await store.insertLogin(row);
 * const pending = await store.findLogin(browserHash);
 * const login = await store.takeLogin(browserHash); // undefined the second time
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, SsoLoginsTable } from '../db/tables.js';

export type SsoLoginRow = Selectable<SsoLoginsTable>;

export function createSsoStore(db: Kysely<Database>) {
  return {
    async insertLogin(row: Insertable<SsoLoginsTable>): Promise<void> {
      // One sign-in in progress per browser: a new start replaces the previous one.
      await db.deleteFrom('sso_logins').where('browser_hash', '=', row.browser_hash).execute();
      await db.insertInto('sso_logins').values(row).execute();
    },
    /** The sign-in this browser started, left pending (a callback that fails to verify changes nothing). */
    findLogin: (browserHash: string): Promise<SsoLoginRow | undefined> => db.selectFrom('sso_logins').selectAll().where('browser_hash', '=', browserHash).executeTakeFirst(),
    /** Deletes and returns the sign-in this browser started, so it can be used once. */
    async takeLogin(browserHash: string): Promise<SsoLoginRow | undefined> {
      return db.deleteFrom('sso_logins').where('browser_hash', '=', browserHash).returningAll().executeTakeFirst();
    },
    async sweepLogins(before: number): Promise<void> {
      await db.deleteFrom('sso_logins').where('created_at', '<', before).execute();
    },
    /** The user the identity is linked to (looked up by issuer and subject, never by email). */
    async userOfIdentity(issuer: string, subject: string): Promise<string | undefined> {
      const row = await db.selectFrom('user_identities').select('user_id').where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
      return row?.user_id;
    },
  };
}

/** Writes that run inside the users store's transaction (service.ts). */
export async function insertIdentity(trx: Kysely<Database>, row: { issuer: string; subject: string; user_id: string; created_at: number }): Promise<void> {
  await trx.insertInto('user_identities').values(row).execute();
}

export type SsoStore = ReturnType<typeof createSsoStore>;

/**
 * The domain look-ups of the certificate allow list: Kysely queries only.
 *
 * Both read across workspaces on purpose: a certificate is for a host name, whichever workspace
 * holds it, and the answer (allowed or not) tells the asker nothing about the workspace.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';

export function createTlsStore(db: Kysely<Database>) {
  const candidates = (verifiedOnly: boolean) => {
    const q = db.selectFrom('domains').select('slug');
    return verifiedOnly ? q.where('verified', '=', 1) : q;
  };
  return {
    /** How many workspaces the service holds (for the unverified-domains warning). */
    async workspaceCount(): Promise<number> {
      const row = await db.selectFrom('workspaces').select(db.fn.countAll<number | string | bigint>().as('n')).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    /** Service-wide on purpose (above): every domain that may have a certificate. */
    async slugs(verifiedOnly: boolean): Promise<string[]> {
      return (await candidates(verifiedOnly).execute()).map((r) => r.slug);
    },
    /** Service-wide on purpose (above): whether this domain may have a certificate. */
    async allows(slug: string, verifiedOnly: boolean): Promise<boolean> {
      return (await candidates(verifiedOnly).where('slug', '=', slug).executeTakeFirst()) !== undefined;
    },
  };
}

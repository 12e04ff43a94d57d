/**
 * The SQL the migration needs beyond what the concepts' own stores offer: which lead and sale ids
 * the target holds, a customer's first sale and attribution. Events themselves are written only
 * through the event log (clicks) and the `ConversionStore` (leads and sales).
 *
 * @example
 * const store = createMigrationStore(db);
 * const held = await store.existingEventIds(trx, workspaceId, ['evt_1', 'evt_2']);
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';

const CHUNK = 500;

export function createMigrationStore(db: Kysely<Database>) {
  return {
    /** Of these lead/sale ids, the ones stored in the workspace. */
    async existingEventIds(trx: Kysely<Database>, workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (let i = 0; i < ids.length; i += CHUNK) {
        const rows = await trx.selectFrom('events').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', ids.slice(i, i + CHUNK)).execute();
        for (const r of rows) out.add(r.id);
      }
      return out;
    },

    /** Records the customer's first sale time and first attribution when not set yet. */
    async noteCustomerSale(trx: Kysely<Database>, workspaceId: string, customerId: string, at: number): Promise<void> {
      await trx.updateTable('customers').set({ first_sale_at: at }).where('workspace_id', '=', workspaceId).where('id', '=', customerId)
        .where((eb) => eb.or([eb('first_sale_at', 'is', null), eb('first_sale_at', '>', at)])).execute();
    },

    /** A customer's first attribution (the click and link of its first lead), when not set yet. */
    async noteCustomerLead(trx: Kysely<Database>, workspaceId: string, customerId: string, clickId: string, linkId: string): Promise<void> {
      await trx.updateTable('customers').set({ click_id: clickId, link_id: linkId }).where('workspace_id', '=', workspaceId).where('id', '=', customerId)
        .where('click_id', 'is', null).execute();
    },

    /** The workspace's links by lower-cased `domain/key` (the events name their link so). */
    async linksByDomainKey(workspaceId: string): Promise<Map<string, string>> {
      const rows = await db.selectFrom('links').select(['id', 'domain', 'key_lower']).where('workspace_id', '=', workspaceId).execute();
      return new Map(rows.map((r) => [`${r.domain.toLowerCase()}/${r.key_lower}`, r.id]));
    },
  };
}

export type MigrationStore = ReturnType<typeof createMigrationStore>;

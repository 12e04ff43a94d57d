/**
 * Customer queries. Every method takes the workspace id first and filters by it. The store can be
 * bound to a transaction (`createCustomerStore(trx, dialect)`) so the track endpoints change a
 * customer in the same transaction as the events and counters.
 */
import { sql, type Insertable, type Kysely, type Updateable } from 'kysely';
import type { CustomersTable, Database } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import type { CustomerLinkRow, CustomerRow, ListCustomersQuery } from './schema.js';

export type NewCustomer = Insertable<CustomersTable>;
export type CustomerPatch = Pick<
  Updateable<CustomersTable>,
  'name' | 'email' | 'avatar' | 'external_id' | 'processor_customer_id' | 'country' | 'click_id' | 'link_id' | 'updated_at'
>;

/** Filters and page of a customer list, after the service resolved precedence and cursors. */
export interface CustomerListFilter {
  email?: string;
  externalId?: string;
  search?: string;
  country?: string;
  linkId?: string;
  programId?: string;
  partnerId?: string;
  sortBy: ListCustomersQuery['sortBy'];
  sortOrder: 'asc' | 'desc';
  /** Keyset cursor on (created_at, id); only with sortBy createdAt. */
  cursor?: { createdAt: number; id: string; direction: 'after' | 'before' };
  offset: number;
  limit: number;
}

const SORT_COLUMN = {
  createdAt: 'created_at',
  saleAmount: 'sale_amount',
  firstSaleAt: 'first_sale_at',
  // Subscriptions are not modelled; the field is always null, so creation order is used.
  subscriptionCanceledAt: 'created_at',
} as const;

export interface CustomerStore {
  findById(workspaceId: string, id: string): Promise<CustomerRow | undefined>;
  findByExternalId(workspaceId: string, externalId: string): Promise<CustomerRow | undefined>;
  list(workspaceId: string, filter: CustomerListFilter): Promise<CustomerRow[]>;
  /** Inserts a customer; throws the engine's unique violation when the external id is taken. */
  insert(row: NewCustomer): Promise<void>;
  /** Applies a patch and returns the updated row. An update also row-locks it until commit. */
  update(workspaceId: string, id: string, patch: CustomerPatch): Promise<CustomerRow | undefined>;
  /**
   * Adds one sale: counts, amount, and `first_sale_at` when unset. Runs as an UPDATE so that
   * concurrent sales of one customer queue on the row lock (PostgreSQL) instead of racing.
   */
  addSale(workspaceId: string, id: string, amountUsdCents: number, now: number): Promise<void>;
  /** Takes a refund off the customer's `saleAmount` (the sale stays counted in `sales`). */
  addRefund(workspaceId: string, id: string, amountUsdCents: number, now: number): Promise<void>;
  /** The customer whose payment processor id (e.g. Stripe's `cus_…`) this is. */
  findByProcessorId(workspaceId: string, processorId: string): Promise<CustomerRow | undefined>;
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** The links customers are attributed to, for the expanded fields. */
  linksByIds(workspaceId: string, linkIds: readonly string[]): Promise<Map<string, CustomerLinkRow>>;
}

export function createCustomerStore(db: Kysely<Database>, dialect: Dialect): CustomerStore {
  return {
    findById: (workspaceId, id) =>
      db.selectFrom('customers').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst(),

    findByExternalId: (workspaceId, externalId) =>
      db
        .selectFrom('customers')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('external_id', '=', externalId)
        .executeTakeFirst(),

    async list(workspaceId, f) {
      let q = db.selectFrom('customers').selectAll().where('workspace_id', '=', workspaceId);
      if (f.email !== undefined) q = q.where('email', '=', f.email);
      else if (f.externalId !== undefined) q = q.where('external_id', '=', f.externalId);
      else if (f.search) {
        const s = f.search;
        q = s.includes('@')
          ? q.where('email', '=', s)
          : q.where((eb) =>
              eb.or([
                dialect.containsInsensitive(eb.ref('name'), s),
                dialect.containsInsensitive(eb.ref('email'), s),
                dialect.containsInsensitive(eb.ref('external_id'), s),
              ] as never),
            );
      }
      if (f.country) q = q.where('country', '=', f.country.toUpperCase());
      if (f.linkId) q = q.where('link_id', '=', f.linkId);
      if (f.programId || f.partnerId) {
        q = q.where('link_id', 'in', (eb) => {
          let sub = eb.selectFrom('links').select('id').where('workspace_id', '=', workspaceId);
          if (f.programId) sub = sub.where('program_id', '=', f.programId);
          if (f.partnerId) sub = sub.where('partner_id', '=', f.partnerId);
          return sub;
        });
      }
      const col = SORT_COLUMN[f.sortBy];
      let dir: 'asc' | 'desc' = f.sortOrder;
      if (f.cursor) {
        const { createdAt, id, direction } = f.cursor;
        // "after" continues in the sort direction; "before" walks backwards and is reversed below.
        const forwardLess = f.sortOrder === 'desc';
        const less = direction === 'after' ? forwardLess : !forwardLess;
        q = q.where((eb) =>
          eb.or([
            eb('created_at', less ? '<' : '>', createdAt),
            eb.and([eb('created_at', '=', createdAt), eb('id', less ? '<' : '>', id)]),
          ]),
        );
        if (direction === 'before') dir = dir === 'desc' ? 'asc' : 'desc';
      }
      // Customers without a value (no sale yet) come last in both orders and on both engines,
      // which sort NULLs differently by default.
      if (col === 'first_sale_at') q = q.orderBy(sql`${sql.ref(col)} is null`);
      q = q.orderBy(col, dir).orderBy('id', dir).limit(f.limit).offset(f.offset);
      const rows = await q.execute();
      return f.cursor?.direction === 'before' ? rows.reverse() : rows;
    },

    async insert(row) {
      await db.insertInto('customers').values(row).execute();
    },

    async update(workspaceId, id, patch) {
      await db.updateTable('customers').set(patch).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
      return db.selectFrom('customers').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    async addRefund(workspaceId, id, amount, now) {
      await db
        .updateTable('customers')
        .set((eb) => ({ sale_amount: eb('sale_amount', '-', amount), updated_at: now }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .execute();
    },

    findByProcessorId: (workspaceId, processorId) =>
      db
        .selectFrom('customers')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('processor_customer_id', '=', processorId)
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst(),

    async addSale(workspaceId, id, amount, now) {
      await db
        .updateTable('customers')
        .set((eb) => ({
          sales: eb('sales', '+', 1),
          sale_amount: eb('sale_amount', '+', amount),
          first_sale_at: eb.fn.coalesce('first_sale_at', eb.val(now)),
          updated_at: now,
        }))
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', id)
        .execute();
    },

    async delete(workspaceId, id) {
      const res = await db.deleteFrom('customers').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
      return Number(res.numDeletedRows) > 0;
    },

    async linksByIds(workspaceId, linkIds) {
      const out = new Map<string, CustomerLinkRow>();
      if (!linkIds.length) return out;
      const rows = await db
        .selectFrom('links')
        .select(['id', 'domain', 'key', 'short_link', 'url', 'program_id'])
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', [...new Set(linkIds)])
        .execute();
      for (const r of rows) out.set(r.id, r);
      return out;
    },
  };
}

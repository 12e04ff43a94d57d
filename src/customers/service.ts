/**
 * Customer rules: lookup by id or `ext_<externalId>`, list precedence and cursors, updates.
 * A customer of another workspace answers exactly like a missing one (404).
 */
import { ApiError } from '../http/errors.js';
import { fieldsOf, record, type Who } from '../audit/record.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import { customerDisplayName } from './names.js';
import type { CustomerPatch, CustomerStore } from './store.js';
import {
  toCustomerResponse,
  type CustomerResponse,
  type CustomerRow,
  type ListCustomersQuery,
  type UpdateCustomerBody,
} from './schema.js';

/** Path ids starting with this prefix name the customer by its external id. */
export const EXTERNAL_ID_PREFIX = 'ext_';

const NOT_FOUND =
  'Customer not found. Pass the customer id (`cus_…`) or the external id prefixed with `ext_` (e.g. `ext_user_42`).';

export interface CustomerService {
  get(workspaceId: string, idOrExternal: string, expand: boolean): Promise<CustomerResponse>;
  list(workspaceId: string, query: ListCustomersQuery): Promise<CustomerResponse[]>;
  update(workspaceId: string, idOrExternal: string, body: UpdateCustomerBody, expand: boolean, who?: Who): Promise<CustomerResponse>;
  /**
   * Deletes the customer row: its name, email, avatar, external and processor ids. The lead and
   * sale events keep only the opaque customer id, unless `deleteEvents` erases them too.
   */
  delete(workspaceId: string, idOrExternal: string, options?: { deleteEvents?: boolean }, who?: Who): Promise<{ id: string }>;
}

/** Erases a customer and their events in one write (customers/module.ts binds it to the database and event log). */
export type EraseCustomer = (workspaceId: string, customerId: string, who?: Who) => Promise<void>;

/** Runs `fn` with a store bound to one transaction (the audit entry commits with the change). */
export type CustomerTransaction = <T>(fn: (store: CustomerStore, trx: Kysely<Database>) => Promise<T>) => Promise<T>;

export function createCustomerService(
  store: CustomerStore,
  dialect: Dialect,
  now: () => number,
  eraseWithEvents: EraseCustomer,
  inTransaction: CustomerTransaction,
): CustomerService {
  async function find(workspaceId: string, idOrExternal: string): Promise<CustomerRow> {
    const row = idOrExternal.startsWith(EXTERNAL_ID_PREFIX)
      ? await store.findByExternalId(workspaceId, idOrExternal.slice(EXTERNAL_ID_PREFIX.length))
      : await store.findById(workspaceId, idOrExternal);
    if (!row) throw new ApiError('not_found', NOT_FOUND);
    return row;
  }

  async function respond(workspaceId: string, rows: CustomerRow[], expand: boolean): Promise<CustomerResponse[]> {
    if (!expand) return rows.map((r) => toCustomerResponse(r));
    const links = await store.linksByIds(
      workspaceId,
      rows.map((r) => r.link_id).filter((id): id is string => !!id),
    );
    return rows.map((r) => toCustomerResponse(r, { link: r.link_id ? links.get(r.link_id) : undefined }));
  }

  return {
    async get(workspaceId, idOrExternal, expand) {
      const row = await find(workspaceId, idOrExternal);
      return (await respond(workspaceId, [row], expand))[0]!;
    },

    async list(workspaceId, q) {
      if (q.startingAfter && q.endingBefore) {
        throw new ApiError('unprocessable_entity', 'Use either startingAfter or endingBefore, not both.');
      }
      const cursorId = q.startingAfter ?? q.endingBefore;
      let cursor: { createdAt: number; id: string; direction: 'after' | 'before' } | undefined;
      if (cursorId) {
        if (q.page !== undefined) throw new ApiError('unprocessable_entity', 'Cursor pagination cannot be combined with page.');
        if (q.sortBy !== 'createdAt') {
          throw new ApiError('unprocessable_entity', 'Cursor pagination is only available with sortBy=createdAt.');
        }
        const at = await store.findById(workspaceId, cursorId);
        if (!at) throw new ApiError('unprocessable_entity', `Invalid cursor: no customer ${cursorId} in this workspace.`);
        cursor = { createdAt: Number(at.created_at), id: at.id, direction: q.startingAfter ? 'after' : 'before' };
      }
      const rows = await store.list(workspaceId, {
        email: q.email,
        externalId: q.externalId,
        search: q.search?.trim() || undefined,
        country: q.country,
        linkId: q.linkId,
        programId: q.programId,
        partnerId: q.partnerId,
        sortBy: q.sortBy,
        sortOrder: q.sortOrder,
        cursor,
        offset: cursor ? 0 : ((q.page ?? 1) - 1) * q.pageSize,
        limit: q.pageSize,
      });
      return respond(workspaceId, rows, q.includeExpandedFields === true);
    },

    async update(workspaceId, idOrExternal, body, expand, who) {
      const row = await find(workspaceId, idOrExternal);
      const patch: CustomerPatch = { updated_at: now() };
      const email = body.email === undefined ? row.email : body.email;
      if (body.email !== undefined) patch.email = body.email;
      // An explicit empty or null name falls back to the email, then to a readable random name.
      if (body.name !== undefined) patch.name = customerDisplayName(body.name, email);
      if (body.avatar !== undefined) patch.avatar = body.avatar;
      const processorId = body.processorCustomerId !== undefined ? body.processorCustomerId : body.stripeCustomerId;
      if (processorId !== undefined) patch.processor_customer_id = processorId;
      if (body.country !== undefined) patch.country = body.country.toUpperCase();
      if (body.externalId !== undefined && body.externalId !== row.external_id) {
        const taken = await store.findByExternalId(workspaceId, body.externalId);
        if (taken) throw new ApiError('conflict', `A customer with the external id "${body.externalId}" already exists in this workspace.`);
        patch.external_id = body.externalId;
      }
      let updated: CustomerRow | undefined;
      try {
        updated = await inTransaction(async (tx, trx) => {
          const done = await tx.update(workspaceId, row.id, patch);
          if (done) await record(trx, who, { workspaceId, action: 'customer.update', targetIds: row.id, changes: { fields: fieldsOf(body) } });
          return done;
        });
      } catch (err) {
        // A concurrent update took the external id between the check and the write.
        if (dialect.isUniqueViolation(err)) {
          throw new ApiError('conflict', `A customer with the external id "${body.externalId}" already exists in this workspace.`);
        }
        throw err;
      }
      if (!updated) throw new ApiError('not_found', NOT_FOUND);
      return (await respond(workspaceId, [updated], expand))[0]!;
    },

    async delete(workspaceId, idOrExternal, options = {}, who) {
      const row = await find(workspaceId, idOrExternal);
      if (options.deleteEvents) {
        await eraseWithEvents(workspaceId, row.id, who);
        return { id: row.id };
      }
      // Events keep their customer_id (an opaque id): analytics of past leads and sales stay unchanged.
      await inTransaction(async (tx, trx) => {
        await tx.delete(workspaceId, row.id);
        await record(trx, who, { workspaceId, action: 'customer.delete', targetIds: row.id });
      });
      return { id: row.id };
    },
  };
}

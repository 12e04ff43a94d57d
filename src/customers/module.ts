/**
 * Customers module: the customer store (also used by tracking inside its transactions), the
 * service and the /customers routes.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { Database } from '../db/tables.js';
import { createCustomerStore, type CustomerStore } from './store.js';
import { createCustomerService } from './service.js';
import { record, type Who } from '../audit/record.js';
import { customerRoutes } from './routes.js';

export function createCustomersModule(ctx: AppContext) {
  const { db, dialect } = ctx.database;
  /** A customer store bound to `db`, which may be a transaction. */
  const storeFor = (handle: Kysely<Database>): CustomerStore => createCustomerStore(handle, dialect);
  // The row and the events' metadata side (with the rollups and link counters they feed) go in
  // one transaction; a column store deletes its copies once it has committed (afterCommit).
  const eraseWithEvents = async (workspaceId: string, customerId: string, who?: Who) => {
    await db.transaction().execute(async (trx) => {
      await storeFor(trx).delete(workspaceId, customerId);
      await ctx.conversions.forgetCustomer(workspaceId, customerId, trx);
      await record(trx, who, { workspaceId, action: 'customer.delete', targetIds: customerId, changes: { events: 'erased' } });
    });
    await ctx.conversions.afterCommit();
  };
  const service = createCustomerService(createCustomerStore(db, dialect), dialect, ctx.now, eraseWithEvents, (fn) => db.transaction().execute((trx) => fn(storeFor(trx), trx)));
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(customerRoutes, { customers: service });
  };
  return { routes, service, storeFor };
}
export type CustomersModule = ReturnType<typeof createCustomersModule>;

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
  // The row and the events (with the rollups and link counters they feed) go in one transaction.
  const eraseWithEvents = (workspaceId: string, customerId: string, who?: Who) =>
    db.transaction().execute(async (trx) => {
      await storeFor(trx).delete(workspaceId, customerId);
      await ctx.events.forgetCustomer(workspaceId, customerId, trx);
      await record(trx, who, { workspaceId, action: 'customer.delete', targetIds: customerId, changes: { events: 'erased' } });
    });
  const service = createCustomerService(createCustomerStore(db, dialect), dialect, ctx.now, eraseWithEvents, (fn) => db.transaction().execute((trx) => fn(storeFor(trx), trx)));
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(customerRoutes, { customers: service });
  };
  return { routes, service, storeFor };
}
export type CustomersModule = ReturnType<typeof createCustomersModule>;

/**
 * Customers module (stub until its issue lands): service and routes for /customers.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';

export function createCustomersModule(_ctx: AppContext) {
  const routes: FastifyPluginAsync = async () => {};
  return { routes };
}
export type CustomersModule = ReturnType<typeof createCustomersModule>;

/**
 * Domains module (stub until its issue lands): service and routes for /domains.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';

export function createDomainsModule(_ctx: AppContext) {
  const routes: FastifyPluginAsync = async () => {};
  return { routes };
}
export type DomainsModule = ReturnType<typeof createDomainsModule>;

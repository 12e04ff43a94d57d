/**
 * Links module (stub until the links issue lands): service and routes for /links.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';

export function createLinksModule(_ctx: AppContext) {
  const routes: FastifyPluginAsync = async () => {};
  return { routes };
}
export type LinksModule = ReturnType<typeof createLinksModule>;

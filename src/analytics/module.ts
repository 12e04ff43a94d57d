/**
 * Analytics module (stub until the analytics issue lands): GET /analytics and GET /events.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext, Lifecycle } from '../context.js';

export function createAnalyticsModule(_ctx: AppContext) {
  const routes: FastifyPluginAsync = async () => {};
  const lifecycle: Lifecycle = {};
  return { routes, lifecycle };
}
export type AnalyticsModule = ReturnType<typeof createAnalyticsModule>;

/**
 * Tags module (stub until its issue lands): service and routes for /tags.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';

export function createTagsModule(_ctx: AppContext) {
  const routes: FastifyPluginAsync = async () => {};
  return { routes };
}
export type TagsModule = ReturnType<typeof createTagsModule>;

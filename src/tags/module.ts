/**
 * Tags module: the `/tags` routes and the tag lookups other modules reuse (links resolve
 * `tagIds` / `tagNames` through `findTagsByIds` / `findTagsByNames`).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { createTagStore } from './store.js';
import { createTagService } from './service.js';
import { tagRoutes } from './routes.js';

export function createTagsModule(ctx: AppContext) {
  const service = createTagService(createTagStore(ctx.database.db, ctx.database.dialect), ctx.database.dialect, ctx.now);
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(tagRoutes, { service });
  };
  return {
    routes,
    service,
    findTagsByIds: service.findTagsByIds,
    findTagsByNames: service.findTagsByNames,
  };
}
export type TagsModule = ReturnType<typeof createTagsModule>;

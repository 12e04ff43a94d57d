/**
 * Folders module: the `/folders` routes and `folderExists`, which links use to check `folderId`.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { createFolderStore } from './store.js';
import { createFolderService } from './service.js';
import { folderRoutes } from './routes.js';

export function createFoldersModule(ctx: AppContext) {
  const service = createFolderService(createFolderStore(ctx.database.db, ctx.database.dialect), ctx.database.dialect, ctx.now);
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(folderRoutes, { service });
  };
  return { routes, service, folderExists: service.folderExists };
}
export type FoldersModule = ReturnType<typeof createFoldersModule>;

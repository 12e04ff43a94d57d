/**
 * Folders module (stub until its issue lands): service and routes for /folders.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';

export function createFoldersModule(_ctx: AppContext) {
  const routes: FastifyPluginAsync = async () => {};
  return { routes };
}
export type FoldersModule = ReturnType<typeof createFoldersModule>;

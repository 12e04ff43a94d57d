/**
 * Qr module (stub until its issue lands): service and routes for /qr.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';

export function createQrModule(_ctx: AppContext) {
  const routes: FastifyPluginAsync = async () => {};
  return { routes };
}
export type QrModule = ReturnType<typeof createQrModule>;

/**
 * QR module: `GET /qr` renders QR code images (PNG or SVG) for any http(s) URL.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { createQrRenderer } from './render.js';
import { qrRoutes } from './routes.js';

export function createQrModule(_ctx: AppContext) {
  const renderer = createQrRenderer();
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(qrRoutes, { renderer });
  };
  return { routes, renderer };
}
export type QrModule = ReturnType<typeof createQrModule>;

/**
 * QR module: `GET /qr` renders QR code images (PNG or SVG) for any http(s) URL, on a render
 * thread of its own (render-worker.ts) that `lifecycle.close` stops.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Lifecycle } from '../lifecycle.js';
import { createQrRenderer } from './render.js';
import { qrRoutes } from './routes.js';

export function createQrModule(_ctx: AppContext) {
  const renderer = createQrRenderer();
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(qrRoutes, { renderer });
  };
  const lifecycle: Lifecycle = { close: () => renderer.close() };
  return { routes, renderer, lifecycle };
}
export type QrModule = ReturnType<typeof createQrModule>;

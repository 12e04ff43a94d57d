/**
 * `GET /qr`: a QR code image for a URL, without an API key (the `qrCode` field of every link
 * points here). PNG unless `format=svg` or the client accepts SVG and not PNG.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiError } from '../http/errors.js';
import { QrQuery } from './schema.js';
import type { QrImage } from './draw.js';
import { QrRefusedError, type QrRenderer } from './render.js';

/** SVG when asked by `format`, or by an Accept header that names SVG but not PNG. */
export function wantsSvg(format: 'png' | 'svg' | undefined, accept: string | undefined): boolean {
  if (format) return format === 'svg';
  return !!accept && accept.includes('image/svg+xml') && !accept.includes('image/png');
}

export const qrRoutes: FastifyPluginAsyncZod<{ renderer: QrRenderer }> = async (app, { renderer }) => {
  app.get(
    '/qr',
    {
      // No key, so counted per client address (QR_RATE_LIMIT_PER_MINUTE, access/rate-limit.ts).
      config: { public: true, addressLimit: 'qr' },
      schema: { tags: ['QR Codes'], operationId: 'getQRCode', summary: 'Retrieve a QR code', security: [], querystring: QrQuery },
    },
    async (req, reply) => {
      const image = await renderQrCode(renderer, req.query, wantsSvg(req.query.format, req.headers.accept) ? 'svg' : 'png');
      return reply.header('content-type', image.contentType).header('cache-control', 'public, max-age=86400').send(image.body);
    },
  );
};

/** The image a validated `GET /qr` query asks for (the route's and the MCP `link_qr_code` tool's). */
export async function renderQrCode(renderer: QrRenderer, q: Omit<QrQuery, 'logo' | 'hideLogo'>, format: 'png' | 'svg'): Promise<QrImage> {
  const margin = q.margin ?? (q.includeMargin === false ? 0 : 2);
  try {
    return await renderer.render({ text: q.url, format, size: q.size, level: q.level, margin, fg: q.fgColor, bg: q.bgColor });
  } catch (err) {
    // qrcode refuses data beyond a version-40 symbol at the chosen error correction level.
    if (err instanceof QrRefusedError) throw new ApiError('unprocessable_entity', `url: ${err.message}`);
    throw err;
  }
}

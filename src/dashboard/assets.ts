/**
 * The dashboard's static files, served by this server (no third-party host): our stylesheet
 * (`dashboard.css`) and script (`links.js`), beside this file (the build copies them to dist/),
 * and htmx from its package.
 * Both are read once at start; their addresses carry a digest of the content, so browsers may keep
 * them for a year and a new version is a new address. htmx is sent gzipped (its package ships the
 * .gz) to clients that accept it.
 *
 * @example
 * <link rel="stylesheet" href={ASSETS.css} />   // /dashboard/assets/dashboard.css?v=1a2b3c4d
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyPluginAsync } from 'fastify';

const require = createRequire(import.meta.url);

interface Asset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
  version: string;
}

function asset(body: Buffer, type: string, gzipped?: Buffer): Asset {
  return { body, type, gzipped: gzipped ?? gzipSync(body, { level: 9 }), version: createHash('sha256').update(body).digest('hex').slice(0, 10) };
}

const htmxPath = require.resolve('htmx.org/dist/htmx.min.js');
const FILES: Record<string, Asset> = {
  'dashboard.css': asset(readFileSync(new URL('./dashboard.css', import.meta.url)), 'text/css; charset=utf-8'),
  'htmx.min.js': asset(readFileSync(htmxPath), 'text/javascript; charset=utf-8', readFileSync(`${htmxPath}.gz`)),
  'links.js': asset(readFileSync(new URL('./links.js', import.meta.url)), 'text/javascript; charset=utf-8'),
  // The analytics chart (i17-pages): uPlot from its package and our script that feeds it.
  'uplot.min.js': asset(readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js')), 'text/javascript; charset=utf-8'),
  'uplot.min.css': asset(readFileSync(require.resolve('uplot/dist/uPlot.min.css')), 'text/css; charset=utf-8'),
  'chart.js': asset(readFileSync(new URL('./chart.js', import.meta.url)), 'text/javascript; charset=utf-8'),
};

export const ASSETS = {
  css: `/dashboard/assets/dashboard.css?v=${FILES['dashboard.css']!.version}`,
  htmx: `/dashboard/assets/htmx.min.js?v=${FILES['htmx.min.js']!.version}`,
  linksJs: `/dashboard/assets/links.js?v=${FILES['links.js']!.version}`,
  uplot: `/dashboard/assets/uplot.min.js?v=${FILES['uplot.min.js']!.version}`,
  uplotCss: `/dashboard/assets/uplot.min.css?v=${FILES['uplot.min.css']!.version}`,
  chart: `/dashboard/assets/chart.js?v=${FILES['chart.js']!.version}`,
};

/** Bytes sent for each file to a client that accepts gzip (the page weight budget counts these). */
export function compressedSizes(): Record<string, number> {
  return Object.fromEntries(Object.entries(FILES).map(([name, a]) => [name, a.gzipped.length]));
}

export const assetRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { name: string } }>('/dashboard/assets/:name', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const file = FILES[request.params.name];
    if (!file) return reply.status(404).type('text/plain').send('Not found');
    const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    reply
      .header('content-type', file.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'accept-encoding');
    if (gzip) reply.header('content-encoding', 'gzip');
    return reply.send(gzip ? file.gzipped : file.body);
  });
};

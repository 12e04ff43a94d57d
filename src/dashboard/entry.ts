/**
 * What a browser asks the API's host for before any dashboard page: `/` (a person typing the
 * server's address) is sent to the dashboard when the request accepts HTML, and API clients keep
 * the JSON 404 they always got; `/favicon.ico` is a small icon (every page's tab asked for it
 * and got a 404). Short-link hosts never get here: the redirect answers them before Fastify.
 *
 * @example
 * await app.register(entryRoutes);
 * // GET / with Accept: text/html → 302 /dashboard; GET /favicon.ico → image/x-icon
 */
import type { FastifyPluginAsync } from 'fastify';
import { encodeQrPng } from '../qr/png.js';

/** A waymark (a pin) on 16×16 cells: `#` is drawn. */
const PIN = [
  '................',
  '.....######.....',
  '....########....',
  '...###....###...',
  '...##......##...',
  '...##......##...',
  '...###....###...',
  '....########....',
  '....########....',
  '.....######.....',
  '......####......',
  '......####......',
  '.......##.......',
  '.......##.......',
  '................',
  '................',
];

/** An ICO file holding one 32×32 PNG (a form every browser reads). */
function favicon(): Buffer {
  const size = PIN.length;
  const data = new Uint8Array(size * size);
  PIN.forEach((row, y) => [...row].forEach((cell, x) => (data[y * size + x] = cell === '#' ? 1 : 0)));
  const png = encodeQrPng({ size, data }, { width: 32, margin: 0, dark: '#2346c7', light: '#ffffff00' });
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(32, 6); // width
  header.writeUInt8(32, 7); // height
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9);
  header.writeUInt16LE(1, 10); // colour planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(header.length, 18); // where the PNG starts
  return Buffer.concat([header, png]);
}

export const FAVICON = favicon();

/** True when the client asks for HTML (a browser's navigation), not for JSON. */
export function wantsHtml(accept: string | undefined): boolean {
  return /\btext\/html\b/i.test(accept ?? '');
}

export const entryRoutes: FastifyPluginAsync = async (app) => {
  app.get('/', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    if (wantsHtml(request.headers.accept)) return reply.redirect('/dashboard', 302);
    return reply.callNotFound();
  });
  app.get('/favicon.ico', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', 'image/x-icon').header('cache-control', 'public, max-age=86400').send(FAVICON),
  );
};

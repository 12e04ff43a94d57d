/**
 * CORS for browser extensions calling the API (issue 44): a Chromium extension's pages run at
 * `chrome-extension://<id>` and call the API with a bearer key, so its requests are cross-origin
 * and authenticated ones are preflighted. Only extension origins are allowed, only on the API
 * (never the dashboard's cookie pages), and never with credentials: the key travels in the
 * Authorization header, no cookie is ever sent. Other origins get no CORS headers, as before, and
 * an OPTIONS request that is not an allowed preflight gets the API's 404. Only an extension
 * without a host permission for this server needs it (the shipped one holds none); one granted
 * the origin (the options' "Allow direct access", needed for the published API, which sends no
 * CORS headers to extensions) is not preflighted at all (docs/extension.md, the browser tests).
 *
 * @example
 * await app.register(corsPlugin);          // before the auth plugin, so a preflight needs no key
 * isCorsOrigin('chrome-extension://abcdefghijklmnopabcdefghijklmnop'); // true
 * isCorsPath('/dashboard/w/acme/links');   // false
 */
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';

/** Chromium extension ids are 32 letters a-p (a SHA-256 prefix spelled in that alphabet). */
const EXTENSION_ORIGIN = /^chrome-extension:\/\/[a-p]{32}$/;

/** Pages served with a session cookie: not the API, never shared with another origin. */
const PAGE_PREFIXES = ['/dashboard', '/setup', '/stats', '/docs'];

/** True for the origin of a Chromium extension. */
export function isCorsOrigin(origin: string | undefined): boolean {
  return !!origin && EXTENSION_ORIGIN.test(origin);
}

/** True when the path is the API's, not one of the dashboard's pages. */
export function isCorsPath(url: string): boolean {
  const path = url.split('?', 1)[0]!;
  return path !== '/' && !PAGE_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/** What an allowed origin may do: the API's methods, its two request headers, ten minutes of preflight cache. */
const ALLOWED = {
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowedHeaders: ['authorization', 'content-type'],
  exposedHeaders: ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'],
  maxAge: 600,
  credentials: false,
  // A bare OPTIONS (no Origin or request method) falls through to the API's 404, not a text/plain 400.
  strictPreflight: false,
} satisfies FastifyCorsOptions;

function optionsFor(request: FastifyRequest): FastifyCorsOptions {
  const allowed = isCorsOrigin(request.headers.origin) && isCorsPath(request.url);
  return { ...ALLOWED, origin: allowed ? request.headers.origin! : false };
}

export const corsPlugin = fp(async (app) => {
  await app.register(fastifyCors, { hook: 'onRequest', delegator: (request, callback) => callback(null, optionsFor(request)) });
});

/**
 * `GET /tls/allow?domain=<host>`: a TLS terminator's question before it gets a certificate for a
 * host name (Caddy's on-demand TLS `ask`, deploy/Caddyfile). 200 with an empty body when the name
 * is Waymark's; otherwise 404 with one body, the same whatever the reason (unknown, unverified,
 * deleted, malformed, missing), so the answer says nothing about which names exist. Needs no key;
 * counted per client address (TLS_ALLOW_RATE_LIMIT_PER_MINUTE, http/rate-limit.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../http/errors.js';
import { certificateName } from './host-name.js';
import type { TlsAllowList } from './allow-list.js';

export const tlsRoutes: FastifyPluginAsync<{ list: TlsAllowList; onAsk?: () => void }> = async (app, { list, onAsk }) => {
  let asked = false;
  app.get('/tls/allow', { config: { public: true, addressLimit: 'tls' }, schema: { hide: true } }, async (req, reply) => {
    // The first question shows a terminator is in front (module.ts warns if domains are unverified).
    if (!asked) {
      asked = true;
      onAsk?.();
    }
    const domain = (req.query as Record<string, unknown>).domain;
    const name = typeof domain === 'string' ? certificateName(domain) : null;
    if (name === null || !list.allows(name)) throw new ApiError('not_found', 'No certificate is issued for this host name.');
    return reply.status(200).send();
  });
};

/**
 * Raw bodies for the routes registered inside this plugin only: every content type is read as a
 * Buffer, exactly as sent, because a webhook signature (integrations/signatures.ts) is computed
 * over those bytes and a parse-and-stringify round trip would change them. Fastify's parsers are
 * per encapsulated context, so the JSON parser of the rest of the API (input-guards.ts) is untouched.
 *
 * @example
 * await app.register(rawBodyRoutes, { bodyLimit: 1 << 20, routes: (scope) => scope.post('/hook', (req) => verify(req.body as Buffer)) });
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';

export interface RawBodyRoutesOptions {
  /** Largest body accepted, in bytes. */
  bodyLimit: number;
  routes: (scope: FastifyInstance) => void | Promise<void>;
}

export const rawBodyRoutes: FastifyPluginAsync<RawBodyRoutesOptions> = async (scope, { bodyLimit, routes }) => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));
  await routes(scope);
};

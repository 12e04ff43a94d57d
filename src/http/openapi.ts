/**
 * `GET /openapi.json` and the interactive reference at `GET /docs`, both generated from the
 * same zod schemas that validate requests.
 */
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import { createJsonSchemaTransformObject, jsonSchemaTransform } from 'fastify-type-provider-zod';
import { VERSION } from '../version.js';

/**
 * The reference viewer's settings: everything stays on this server. Scalar's viewer can send the
 * document to Scalar's hosted services (its AI agent, MCP server generation, the developer
 * toolbar's "share"/"deploy", a request proxy, fonts from its CDN, telemetry); each is turned off
 * here. Its script is served by the plugin itself (`/docs/js/scalar.js`), not a CDN, and "Test
 * request" calls this server directly (no `proxyUrl`).
 */
export const DOCS_CONFIGURATION = {
  url: '/openapi.json',
  agent: { disabled: true, hideAddApi: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  showToolbar: 'never',
  hideClientButton: true,
  telemetry: false,
  withDefaultFonts: false,
  documentDownloadType: 'json',
} as const;

export const openApiPlugin = fp<{ baseUrl: string }>(
  async (app, { baseUrl }) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Waymark API',
          version: VERSION,
          description: 'Short links, click, lead and sale attribution, analytics. Authenticate with `Authorization: Bearer <API key>`.',
        },
        servers: [{ url: baseUrl }],
        components: { securitySchemes: { token: { type: 'http', scheme: 'bearer' } } },
        security: [{ token: [] }],
      },
      transform: jsonSchemaTransform,
      // Schemas named with `.meta({ id })` (e.g. `Link`) become `components.schemas` entries that routes `$ref`.
      transformObject: createJsonSchemaTransformObject({ zodToJsonConfig: { target: 'openapi-3.0' } }),
      // Internal routes (redirect catch-all, docs assets) are hidden with `schema.hide`.
    });
    app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
    const viewer = lazyDocsViewer();
    const forward = async (req: FastifyRequest, reply: FastifyReply) => {
      const res = await (await viewer.app()).inject({ method: 'GET', url: req.url });
      // The viewer's own 404 is not in the spec's error body: this app's answers it.
      if (res.statusCode === 404) return reply.callNotFound();
      for (const name of ['content-type', 'location']) {
        const value = res.headers[name];
        if (value !== undefined) reply.header(name, value);
      }
      return reply.code(res.statusCode).send(res.rawPayload);
    };
    app.get('/docs', { config: { public: true }, schema: { hide: true } }, forward);
    app.get('/docs/*', { config: { public: true }, schema: { hide: true } }, forward);
    app.addHook('onClose', () => viewer.close());
  },
  { name: 'waymark-openapi' },
);

/**
 * Scalar's viewer is one 3.8 MB module that takes about a second to evaluate: every start (and
 * every test app) would pay it for a page few open. It is imported on the first request for
 * `/docs`, into a Fastify app of its own that `/docs` and `/docs/*` forward to.
 */
function lazyDocsViewer(): { app(): Promise<FastifyInstance>; close(): Promise<void> } {
  let viewer: Promise<FastifyInstance> | undefined;
  return {
    app() {
      viewer ??= (async () => {
        const { default: scalar } = await import('@scalar/fastify-api-reference');
        const docs = Fastify({ logger: false });
        await docs.register(scalar, {
          routePrefix: '/docs',
          configuration: { ...DOCS_CONFIGURATION, agent: { ...DOCS_CONFIGURATION.agent }, mcp: { ...DOCS_CONFIGURATION.mcp } },
        });
        await docs.ready();
        return docs;
      })();
      return viewer;
    },
    async close() {
      if (viewer) await (await viewer).close();
    },
  };
}

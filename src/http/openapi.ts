/**
 * `GET /openapi.json` and the interactive reference at `GET /docs`, both generated from the
 * same zod schemas that validate requests.
 */
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import { createJsonSchemaTransformObject, jsonSchemaTransform } from 'fastify-type-provider-zod';

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
          version: '0.0.1',
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
    await app.register(scalar, {
      routePrefix: '/docs',
      configuration: { ...DOCS_CONFIGURATION, agent: { ...DOCS_CONFIGURATION.agent }, mcp: { ...DOCS_CONFIGURATION.mcp } },
    });
  },
  { name: 'waymark-openapi' },
);

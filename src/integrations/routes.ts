/**
 * `POST /integrations/{provider}/{workspaceId}`: the address a workspace gives Stripe, Shopify or
 * Paddle. Public (the provider has no API key; the signature is the authentication) and left out
 * of the OpenAPI document: it is not part of the published API the SDK calls, and its body is
 * the provider's, not Waymark's. Bodies arrive raw (http/raw-body.ts) for the signature check.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../http/errors.js';
import { rawBodyRoutes } from '../http/raw-body.js';
import { isProvider, type IntegrationsService } from './service.js';

/** Providers' events are a few KB; Shopify orders with many lines stay far below this. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

export const integrationRoutes: FastifyPluginAsync<{ service: IntegrationsService }> = async (app, { service }) => {
  await app.register(rawBodyRoutes, {
    bodyLimit: MAX_DELIVERY_BYTES,
    routes: (scope) => {
      scope.post<{ Params: { provider: string; workspaceId: string } }>(
        '/integrations/:provider/:workspaceId',
        { config: { public: true }, schema: { hide: true } },
        async (req) => {
          const { provider, workspaceId } = req.params;
          if (!isProvider(provider)) throw new ApiError('not_found', `No integration named ${provider.slice(0, 40)}; Waymark receives stripe, shopify and paddle.`);
          const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
          return service.receive(provider, workspaceId, body, req.headers, req.log);
        },
      );
    },
  });
};

/**
 * A/B test results: `GET /links/{linkId}/ab-test`, read from the event store (ctx.events)
 * for links the links module returns.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { LinksModule } from '../links/module.js';
import { createAbTestService } from './service.js';
import { abTestRoutes } from './routes.js';

export function createAbTestsModule(ctx: AppContext, deps: { links: LinksModule }) {
  const service = createAbTestService({ events: ctx.events, now: ctx.now });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(abTestRoutes, { abTests: service, links: deps.links.service });
  };
  return { routes, service };
}
export type AbTestsModule = ReturnType<typeof createAbTestsModule>;

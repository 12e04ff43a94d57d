/**
 * A/B tests: `GET /links/{linkId}/ab-test` (the result, read from the event store, ctx.events),
 * `GET`/`PATCH /links/{linkId}/ab-test/settings` (the metric and what an inconclusive test does),
 * and the decider that settles completed tests for the redirect (decider.ts), for links the
 * links module returns.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { LinksModule } from '../links/module.js';
import { createAbTestService } from './service.js';
import { createAbTestStore } from './store.js';
import { createTestDecider } from './decider.js';
import { abTestRoutes } from './routes.js';

export function createAbTestsModule(ctx: AppContext, deps: { links: LinksModule; onError?: (err: unknown, context: string) => void }) {
  const store = createAbTestStore(ctx.database.db);
  const service = createAbTestService({ events: ctx.events, store, db: ctx.database.db, now: ctx.now });
  const decider = createTestDecider({ store, result: service.result, bus: ctx.bus, now: ctx.now, onError: deps.onError });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(abTestRoutes, { abTests: service, links: deps.links.service });
  };
  return { routes, service, decider, lifecycle: decider.lifecycle };
}
export type AbTestsModule = ReturnType<typeof createAbTestsModule>;

/**
 * Analytics module: `GET /analytics` and `GET /events`, read from the event store (ctx.events)
 * and shaped with the links, tags and customers they name (read through ctx.reader).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { createAnalyticsService } from './service.js';
import { analyticsRoutes } from './routes.js';

export function createAnalyticsModule(ctx: AppContext) {
  const service = createAnalyticsService({
    db: ctx.database.db,
    reader: ctx.reader,
    events: ctx.events,
    now: ctx.now,
    linkSettings: ctx.config,
  });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(analyticsRoutes, { analytics: service });
  };
  // `runner`: the reader the service goes through, for tests that watch its statements.
  return { routes, service, runner: ctx.reader };
}
export type AnalyticsModule = ReturnType<typeof createAnalyticsModule>;

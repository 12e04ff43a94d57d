/**
 * Analytics module: `GET /analytics` and `GET /events`, read from the event store (ctx.events)
 * and shaped with the links, tags and customers they name (read through ctx.reader). At start it
 * runs the credits' backfill (attribution/backfill.ts) in the background: analytics under a model
 * read the stored credits once it is done.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Lifecycle } from '../lifecycle.js';
import { createCreditBackfill } from '../attribution/backfill.js';
import { createAnalyticsService } from './service.js';
import { analyticsRoutes } from './routes.js';

export function createAnalyticsModule(ctx: AppContext, deps: { onError?: (err: unknown, context: string) => void } = {}) {
  const { db } = ctx.database;
  const backfill = createCreditBackfill({
    conversions: ctx.conversions,
    transaction: (fn) => db.transaction().execute(fn),
    now: ctx.now,
    onError: (err) => deps.onError?.(err, 'credits recomputation failed; analytics with a model read the raw path meanwhile'),
  });
  const service = createAnalyticsService({
    db,
    reader: ctx.reader,
    events: ctx.events,
    now: ctx.now,
    linkSettings: ctx.config,
    creditsReady: () => backfill.ready(),
  });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(analyticsRoutes, { analytics: service });
  };
  let running: Promise<unknown> = Promise.resolve();
  const lifecycle: Lifecycle = {
    start() {
      running = backfill.run().catch((err) => deps.onError?.(err, 'credits backfill failed; analytics with a model read the raw path until a restart finishes it'));
    },
    close: () => running.then(() => undefined),
  };
  // `runner`: the reader the service goes through, for tests that watch its statements.
  return { routes, service, runner: ctx.reader, backfill, lifecycle };
}
export type AnalyticsModule = ReturnType<typeof createAnalyticsModule>;

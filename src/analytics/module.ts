/**
 * Analytics module: `GET /analytics` and `GET /events`, and the SQL runner they read through
 * (a worker thread on a SQLite file, closed at shutdown).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext, Lifecycle } from '../context.js';
import { createSqlRunner } from '../events/sql/sql-runner.js';
import { createAnalyticsService } from './service.js';
import { analyticsRoutes } from './routes.js';

export interface AnalyticsModuleOptions {
  /** Read raw events only (no rollups): used to compare both paths. */
  useRollups?: boolean;
  /** Run SQLite queries on the main thread instead of the worker. */
  inProcess?: boolean;
}

export function createAnalyticsModule(ctx: AppContext, options: AnalyticsModuleOptions = {}) {
  const runner = createSqlRunner(ctx.database, { inProcess: options.inProcess });
  const service = createAnalyticsService({
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    runner,
    now: ctx.now,
    linkSettings: ctx.config,
    useRollups: options.useRollups,
    horizon: ctx.horizon,
  });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(analyticsRoutes, { analytics: service });
  };
  const lifecycle: Lifecycle = {
    close: () => runner.close(),
  };
  return { routes, lifecycle, service, runner };
}
export type AnalyticsModule = ReturnType<typeof createAnalyticsModule>;

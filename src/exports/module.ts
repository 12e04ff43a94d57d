/**
 * Exports module: streamed CSV / NDJSON of links, events and analytics, read through the links
 * and analytics services (the same rules and filters as their lists).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AnalyticsModule } from '../analytics/module.js';
import type { LinksModule } from '../links/module.js';
import { createExportService } from './service.js';
import { recordAlone } from '../audit/module.js';
import type { OpenDatabase } from '../db/open.js';
import { exportRoutes } from './routes.js';
import type { Traces } from '../tracing/traces.js';

export function createExportsModule(deps: { links: LinksModule; analytics: AnalyticsModule; perWorkspace: number; database: OpenDatabase; traces?: Traces }) {
  const service = createExportService({
    links: deps.links.service,
    analytics: deps.analytics.service,
    perWorkspace: deps.perWorkspace,
    record: (who, change) => recordAlone(deps.database, who, change),
    traces: deps.traces,
  });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(exportRoutes, { exports: service });
  };
  return { routes, service };
}
export type ExportsModule = ReturnType<typeof createExportsModule>;

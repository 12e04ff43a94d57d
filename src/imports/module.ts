/**
 * Imports module: `POST /links/import` (CSV), and the import service the CLI reuses (`importLinks`
 * takes parsed link inputs from any source). Imports sent over HTTP (the API, the dashboard:
 * `requests`) are capped by IMPORT_MAX_ROWS and IMPORT_MAX_BYTES and run in time slices.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext, Lifecycle } from '../context.js';
import type { DomainsModule } from '../domains/module.js';
import type { LinksModule } from '../links/module.js';
import type { TagsModule } from '../tags/module.js';
import { createImportService, type CsvImporter } from './service.js';
import { importRoutes } from './routes.js';

export function createImportsModule(ctx: AppContext, deps: { links: LinksModule; tags: TagsModule; domains: DomainsModule }) {
  const { config } = ctx;
  const requestLimits = { maxRows: config.importMaxRows, maxBytes: config.importMaxBytes };
  const service = createImportService({ links: deps.links.service, tags: deps.tags.service, domains: deps.domains.service, shortDomain: config.shortDomain, requestLimits });
  const requests: CsvImporter = service;
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(importRoutes, { imports: requests });
  };
  const lifecycle: Lifecycle = {};
  return { routes, service, requests, lifecycle };
}
export type ImportsModule = ReturnType<typeof createImportsModule>;

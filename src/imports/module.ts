/**
 * Imports module: `POST /links/import` (CSV), and the import service the CLI and the API
 * migration reuse (`importLinks` takes parsed link inputs from any source).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { DomainsModule } from '../domains/module.js';
import type { LinksModule } from '../links/module.js';
import type { TagsModule } from '../tags/module.js';
import { createImportService } from './service.js';
import { importRoutes } from './routes.js';

export function createImportsModule(ctx: AppContext, deps: { links: LinksModule; tags: TagsModule; domains: DomainsModule }) {
  const service = createImportService({ links: deps.links.service, tags: deps.tags.service, domains: deps.domains.service, shortDomain: ctx.config.shortDomain });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(importRoutes, { imports: service });
  };
  return { routes, service };
}
export type ImportsModule = ReturnType<typeof createImportsModule>;

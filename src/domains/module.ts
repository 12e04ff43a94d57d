/**
 * Domains module: the `/domains` routes, `verifyDomain` for the CLI, and the lookups links use
 * (`listWorkspaceDomainSlugs`, `findDomain`, `primaryDomainSlug`).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { createDomainStore } from './store.js';
import { createDomainService } from './service.js';
import { domainRoutes } from './routes.js';
import { defaultResolver, type DnsResolver } from './verification.js';

export function createDomainsModule(ctx: AppContext, deps: { resolver?: DnsResolver } = {}) {
  const service = createDomainService({
    store: createDomainStore(ctx.database.db, ctx.database.dialect),
    dialect: ctx.database.dialect,
    config: ctx.config,
    bus: ctx.bus,
    resolver: deps.resolver ?? defaultResolver(),
    now: ctx.now,
  });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(domainRoutes, { domains: service });
  };
  return {
    routes,
    service,
    verifyDomain: service.verifyDomain,
    listWorkspaceDomainSlugs: service.listWorkspaceDomainSlugs,
    findDomain: service.findDomain,
    primaryDomainSlug: service.primaryDomainSlug,
  };
}
export type DomainsModule = ReturnType<typeof createDomainsModule>;

/**
 * Domains module: the `/domains` routes, `verifyDomain` for the CLI, and the lookups links use
 * (`listWorkspaceDomainSlugs`, `findDomain`, `primaryDomainSlug`).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import { createChangeBus, type ChangeBus } from '../db/change-bus.js';
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
    await app.register(domainRoutes, { service });
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

/**
 * `verifyDomain` without the HTTP app, for `waymark domains verify <slug> [--force]`.
 * The CLI's own bus reaches no server process; a running server sees the new `verified` value the
 * next time it reads the domain row.
 *
 * @example
 * const verify = createDomainVerifier({ config, database });
 * const { verified, reason } = await verify('go.acme.com');
 */
export function createDomainVerifier(input: { config: Config; database: OpenDatabase; bus?: ChangeBus; resolver?: DnsResolver }) {
  return createDomainService({
    store: createDomainStore(input.database.db, input.database.dialect),
    dialect: input.database.dialect,
    config: input.config,
    bus: input.bus ?? createChangeBus(),
    resolver: input.resolver ?? defaultResolver(),
  }).verifyDomain;
}

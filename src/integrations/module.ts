/**
 * Payment provider integrations (issue 43): Stripe, Shopify and Paddle deliver their events to a
 * per-workspace address; each verified event becomes a lead, a sale or a refund through the
 * tracking module's own services. Built by app.ts after tracking.
 *
 * @example
 * const integrations = createIntegrationsModule(ctx, { tracking });
 * await app.register(integrations.routes);
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { TrackingModule } from '../tracking/module.js';
import { integrationRoutes } from './routes.js';
import { createRecorder } from './recorder.js';
import { createSecretBox, loadOrCreateKey } from './secret-box.js';
import { createIntegrationsService } from './service.js';
import { createIntegrationStore } from './store.js';

export function createIntegrationsModule(ctx: AppContext, deps: { tracking: TrackingModule }) {
  const box = createSecretBox({ load: () => loadOrCreateKey({ key: ctx.config.secretsKey, file: ctx.config.secretsKeyPath }) });
  const service = createIntegrationsService({
    store: createIntegrationStore(ctx.database.db, ctx.database.dialect),
    box,
    recorder: createRecorder(deps.tracking.deps, { sales: deps.tracking.sales, leads: deps.tracking.leads }),
    workspaceExists: async (id) => !!(await ctx.workspaces.findWorkspace(id)),
    baseUrl: ctx.config.baseUrl,
    clickIdParam: ctx.config.clickIdParam,
    now: ctx.now,
  });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(integrationRoutes, { service });
  };
  return { routes, service };
}

export type IntegrationsModule = ReturnType<typeof createIntegrationsModule>;

/**
 * The web dashboard (issue 17): server-rendered pages (TSX with @kitajs/html) on the API's host
 * under `/dashboard`, plus `/setup` for the first run. Its routes live in one encapsulated plugin
 * whose hooks (kit.tsx) resolve the session cookie, check CSRF on every state-changing request and
 * send the security headers; its errors are HTML pages with the spec's status and code. API
 * routes are untouched: they still authenticate by bearer key only.
 *
 * @example
 * const dashboard = createDashboardModule(ctx, { users, links: links.service, tags: tags.service, folders: folders.service, domains, services });
 * await app.register(dashboard.routes);
 */
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { LinkService } from '../links/service.js';
import type { UsersModule } from '../users/module.js';
import { ApiError, codeForStatus } from '../http/errors.js';
import { HIDDEN, createKit, installDashboardHooks, redirect, sendPage, type DashboardDeps } from './kit.js';
import { assetRoutes } from './assets.js';
import { installHtmlCompression } from './compression.js';
import { fetchPageCard } from '../outbound/page-card.js';
import { entryRoutes } from './entry.js';
import { createLoginLimiter } from './login-limit.js';
import { createPreviewFetchLimit } from './preview-limit.js';
import { ErrorPage } from './pages/error.js';
import { sessionRoutes } from './routes/session.js';
import { passwordResetRoutes } from './routes/password-reset.js';
import { newWorkspaceRoutes } from './routes/new-workspace.js';
import { accountRoutes } from './routes/account.js';
import { openRateCounters } from '../db/rate-counters.js';
import { inviteRoutes } from './routes/invite.js';
import { memberRoutes } from './routes/members.js';
import { auditRoutes } from './routes/audit.js';
import type { AuditService } from '../audit/module.js';
import { linkRoutes } from './routes/links.js';
import { insightRoutes } from './routes/insights.js';
import { linkBuilderRoutes } from './routes/link-builder.js';
import { linkChoices, type LinkChoiceDeps } from './routes/link-choices.js';
import { placeholderRoutes } from './routes/placeholders.js';
import type { PageServices } from './services.js';
import { analyticsRoutes } from './routes/analytics.js';
import { activityRoutes } from './routes/activity.js';
import { eventsRoutes } from './routes/events.js';
import { publicStatsRoutes } from './routes/public-stats.js';
import { settingsRoutes } from './routes/settings.js';
import { integrationRoutes } from './routes/settings-integrations.js';
import { transferRoutes } from './routes/transfer.js';
import { utmTemplateRoutes } from './routes/utm-templates.js';
import type { CsvImporter } from '../imports/service.js';
import type { JobRunner } from '../imports/job-runner.js';
import type { ExportService } from '../exports/service.js';
import type { SsoService } from '../sso/service.js';
import { ssoRoutes } from './routes/sso.js';
import { paymentIntegrationRoutes } from './routes/settings-payments.js';
import type { IntegrationsService } from '../integrations/service.js';
import { bioRoutes } from './routes/bio.js';
import type { BioService } from '../bio/service.js';

export function createDashboardModule(
  ctx: AppContext,
  { users, links, tags, folders, domains, services, imports, importJobs, exports, audit, sso, integrations, bio }: { users: UsersModule; links: LinkService; services: PageServices; imports: CsvImporter; importJobs: JobRunner; exports: ExportService; audit: AuditService; sso?: SsoService; integrations?: IntegrationsService; bio?: BioService } & Omit<LinkChoiceDeps, 'shortDomain'>,
) {
  const deps: DashboardDeps = { config: ctx.config, users, workspaces: ctx.workspaces };
  const kit = createKit(deps);
  const choices = linkChoices({ tags, folders, domains, shortDomain: ctx.config.shortDomain });
  /** Every route of the dashboard's scope, as registered (the hostile-names test covers each). */
  const registered: { method: string; url: string }[] = [];

  const routes: FastifyPluginAsync = async (app) => {
    await app.register(assetRoutes);
    await app.register(entryRoutes);
    const limiter = createLoginLimiter(ctx.database, {
      perAddress: ctx.config.loginRateLimitPerAddress,
      perAccount: ctx.config.loginRateLimitPerAccount,
      perAccountAnywhere: ctx.config.loginRateLimitPerAccountAnywhere,
      onError: (err, context) => app.log.warn({ err }, context),
    });
    app.addHook('onClose', () => limiter.close());
    const resetCounters = openRateCounters(ctx.database, { onError: (err) => app.log.warn({ err }, 'password reset rate counter failed') });
    app.addHook('onClose', () => resetCounters.close());
    const previewLimit = createPreviewFetchLimit(ctx.database, { ...ctx.config.previewFetchRateLimit, onError: (err, context) => app.log.warn({ err }, context) });
    app.addHook('onClose', () => previewLimit.close());

    await app.register(async (scope) => {
      installDashboardHooks(scope, deps);
      installHtmlCompression(scope);
      scope.addHook('onRoute', (route) => {
        for (const method of [route.method].flat()) if (method !== 'HEAD') registered.push({ method, url: route.url });
      });
      scope.setErrorHandler((err: FastifyError, request, reply) => {
        if (err instanceof ApiError) {
          if (err.code === 'unauthorized') return redirect(reply, '/dashboard/login');
          if (err.headers) reply.headers(err.headers);
          return sendPage(reply, <ErrorPage status={err.status} code={err.code} message={err.message} />, err.status);
        }
        const status = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
        if (status < 500) return sendPage(reply, <ErrorPage status={status} code={codeForStatus(status)} message={err.message} />, status);
        request.log.error({ err }, 'dashboard request failed');
        return sendPage(reply, <ErrorPage status={500} code="internal_server_error" message={`The server failed (request ${request.id}).`} />, 500);
      });
      await scope.register(sessionRoutes(deps, kit, limiter, sso));
      // Single sign-on (src/sso/), when OIDC_ISSUER is set; the callback counts like the login.
      if (sso) await scope.register(ssoRoutes(deps, sso, resetCounters));
      await scope.register(accountRoutes(deps, kit, limiter));
      await scope.register(newWorkspaceRoutes(deps, kit));
      await scope.register(passwordResetRoutes(deps, resetCounters));
      await scope.register(inviteRoutes(deps));
      await scope.register(memberRoutes(deps, kit));
      await scope.register(auditRoutes(kit, audit, users, ctx.workspaces));
      await scope.register(linkRoutes(kit, links, choices, async (id) => (await ctx.workspaces.listKeys(id)).length));
      const fetchCard = (url: string) => fetchPageCard(url, { allowPrivate: ctx.config.webhookAllowPrivate });
      await scope.register(linkBuilderRoutes(kit, links, choices, services.utmTemplates, ctx.config.baseUrl, { fetchCard, limit: previewLimit, docsUrl: ctx.config.docsUrl }));
      await scope.register(placeholderRoutes(kit));
      // Analytics, events, customers, public stats and settings (i17-pages).
      await scope.register(analyticsRoutes(kit, services, links, exports));
      await scope.register(activityRoutes(kit, services));
      await scope.register(insightRoutes(kit, services, links));
      await scope.register(eventsRoutes(kit, services, links));
      await scope.register(publicStatsRoutes(deps, services, links));
      await scope.register(settingsRoutes(kit, services, ctx.workspaces, ctx.config));
      await scope.register(integrationRoutes(kit, services, ctx.workspaces, links));
      if (integrations) await scope.register(paymentIntegrationRoutes(kit, integrations));
      await scope.register(utmTemplateRoutes(kit, services));
      if (bio) await scope.register(bioRoutes(kit, bio));
      // Import and export (issue 18): the API's import and export services.
      await scope.register(transferRoutes(kit, imports, importJobs, exports));
      // Any other address under /dashboard: an HTML 404 rather than the API's JSON one.
      scope.get('/dashboard/*', { config: { anonymous: true }, schema: HIDDEN }, async () => {
        throw new ApiError('not_found', 'There is no page at this address.');
      });
    });
  };

  return { routes, kit, registered: registered as readonly { method: string; url: string }[] };
}

export type DashboardModule = ReturnType<typeof createDashboardModule>;

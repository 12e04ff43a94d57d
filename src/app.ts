/**
 * Builds the whole service as a Fastify instance without listening, so tests can drive it with
 * `inject()` and `main.ts` can serve it. Every module is registered here, explicitly and in order.
 *
 * @example
 * const { app, ctx } = await buildApp({ config: loadConfig(), database: await openDatabase(url) });
 * const res = await app.inject({ method: 'GET', url: '/health' });
 */
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler as _unused, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { OpenDatabase } from './db/open.js';
import type { AppContext } from './context.js';
import type { Lifecycle } from './lifecycle.js';
import { createChangeBus } from './db/change-bus.js';
import { MAX_PATH_PARAM_LENGTH, clientErrorHandler, frameworkErrorHandler, installErrorHandlers } from './http/errors.js';
import { installInputGuards } from './http/input-guards.js';
import { OneLinePerRequest } from './http/request-log.js';
import { authPlugin } from './access/auth.js';
import { createRateLimits } from './access/rate-limit.js';
import { clientAddressPlugin, clientAddressRule } from './http/client-address.js';
import { openApiPlugin } from './http/openapi.js';
import { corsPlugin } from './http/cors.js';
import { errorDocsRoutes } from './http/error-docs.js';
import { createWorkspaceStore } from './workspaces/store.js';
import { createWorkspaceService } from './workspaces/service.js';
import { workspaceRoutes } from './workspaces/routes.js';
import { createRetention, createSqlRunner, eventStoreKind, startEventLog } from './events/index.js';
import type { ClickListenerSettings } from './click-listeners/index.js';
import { createTagsModule } from './tags/module.js';
import { createFoldersModule } from './folders/module.js';
import { createDomainsModule } from './domains/module.js';
import { createLinksModule } from './links/module.js';
import { createCustomersModule } from './customers/module.js';
import { createRedirectModule } from './redirect/module.js';
import { createTrackingModule } from './tracking/module.js';
import { createIntegrationsModule } from './integrations/module.js';
import { createAnalyticsModule } from './analytics/module.js';
import { createAbTestsModule } from './ab-tests/module.js';
import { createJourneysModule } from './journeys/module.js';
import { createQrModule } from './qr/module.js';
import { createOutboxModule } from './outbox/module.js';
import { createEventExpander } from './webhooks/event-payloads.js';
import { createWebhooksModule } from './webhooks/module.js';
import { createImportsModule } from './imports/module.js';
import { createExportsModule } from './exports/module.js';
import type { Subscriber } from './outbox/publisher.js';
import { createUsersModule } from './users/module.js';
import { createDashboardModule } from './dashboard/module.js';
import { createSsoModule } from './sso/module.js';
import { createUtmTemplatesModule } from './utm-templates/module.js';
import { createBioModule } from './bio/module.js';
import { createTlsModule } from './tls/module.js';
import { createAuditModule } from './audit/module.js';
import { createMcpModule } from './mcp/module.js';
import { createMailer, mailEntry } from './mail/module.js';
import type { MailIntent } from './mail/intents.js';
import type { Kysely } from 'kysely';
import type { Database } from './db/tables.js';
import { createMetrics } from './metrics/module.js';
import { startTraces } from './tracing/traces.js';
import { traceRequests } from './tracing/requests.js';
import { healthRoutes } from './health/routes.js';
import { createApiAdmission } from './http/api-admission.js';
import { createReadiness, type Readiness } from './health/readiness.js';
import type { StartingServer } from './health/starting-server.js';
import { connectEventLog, createFrontRedirect, forwardChanges, type ApiThreadPorts } from './api-thread/api-side.js';
import { behindFront } from './http/client-address.js';

void _unused;

export interface BuildOptions {
  config: Config;
  database: OpenDatabase;
  /** Fastify logger setting; tests pass false. */
  logger?: boolean | object;
  now?: () => number;
  /** Benchmarks: rate limits counted in this process's memory even on PostgreSQL (bench/rate-limit.ts). */
  processLocalRateCounters?: boolean;
  /** Domain event subscribers (outbox/publisher.ts), besides the EVENTS_FILE sink. */
  subscribers?: readonly Subscriber[];
  /** What `GET /ready` reports (main.ts moves it through the start); by default, serving. */
  readiness?: Readiness;
  /** A server already listening (main.ts, health/starting-server.ts), adopted instead of a new one. */
  starting?: StartingServer;
  /** Tests: the event log served on this thread, not its own (events/log/start.ts `inThread`). */
  eventLogInThread?: boolean;
  /**
   * Run as the API thread behind the front (src/api-thread/): the event log, the redirect and the
   * link caches are the front's, reached over these ports; the server is the API's own.
   */
  apiThread?: ApiThreadPorts;
}

export async function buildApp(options: BuildOptions) {
  const { config, database } = options;
  const now = options.now ?? Date.now;
  const workspaces = createWorkspaceService(createWorkspaceStore(database.db), now);
  const reader = createSqlRunner(database);
  // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK is loaded only then (src/tracing/).
  const traces = await startTraces(config.tracing, 'main');
  // Built before the outbox module, which registers its outbox subscriber.
  const webhooks = createWebhooksModule({ config, database, now, traces });
  // Mail through the outbox (src/mail/): a subscriber only when SMTP_URL is set.
  const mailer = await createMailer(config);
  const domainEvents = createOutboxModule({
    config,
    database,
    // Subscribers receive the published payloads, links spelled as the links API spells them.
    expander: () => createEventExpander(database.db, config),
    now,
    subscribers: [...(options.subscribers ?? []), webhooks.subscriber, ...(mailer ? [mailer.subscriber] : [])],
    onError: (err, context) => app.log.warn({ err, ...context }, 'domain event not delivered; it will be retried'),
  });
  // The event log EVENTS_URL names, owned by its own thread (src/events/log/): the click writer
  // hands it raw clicks, everything else reads and erases through `ctx.events`, its client.
  // It starts and opens the store while the routes are built below. Upgrade lines are logged once
  // the logger exists.
  const upgradeLines: [Record<string, unknown>, string][] = [];
  const logLines: { level: 'info' | 'warn' | 'error'; msg: string; fields: Record<string, unknown> }[] | null = [];
  let appReady = false;
  const logOptions = {
    config,
    database,
    kind: eventStoreKind(config, database),
    inThread: options.eventLogInThread,
    listeners: {
      module: new URL('./click-listeners/index.js', import.meta.url),
      settings: () => ({ clicks: domainEvents.outbox.clickSubscriptions() }) satisfies ClickListenerSettings,
      watch: (changed) => domainEvents.outbox.watchClicks(changed),
    },
    onCounted: (written) => {
      if (written.includes('outbox')) domainEvents.outbox.nudge();
      if (written.includes('webhooks')) domainEvents.outbox.clicksRouted();
    },
    onLog: (level, msg, fields) => {
      if (appReady) app.log[level](fields, msg);
      else if (level === 'info') upgradeLines.push([fields, msg]);
      else logLines?.push({ level, msg, fields });
    },
  } satisfies Parameters<typeof startEventLog>[0];
  const eventLog = options.apiThread ? connectEventLog(options.apiThread.log, logOptions) : startEventLog(logOptions);
  // Which X-Forwarded-For entry is the client, decided once for Fastify's routes and the redirect.
  // Behind the front, one hop more: the front's (it appends the peer to X-Forwarded-For).
  const clientAddress = options.apiThread ? behindFront(clientAddressRule(config.trustProxy)) : clientAddressRule(config.trustProxy);
  const ctx: AppContext = {
    config,
    database,
    clientAddress,
    bus: createChangeBus(),
    workspaces,
    events: eventLog.events,
    conversions: eventLog.conversions,
    reader,
    now,
    outbox: domainEvents.outbox,
    traces,
  };

  // Off unless METRICS_TOKEN or METRICS_PORT is set. Built before the modules, so the event
  // store's appends are timed from the first; reads the modules' own counters at scrape.
  let replayedClicks = 0;
  const metrics = await createMetrics(config, {
    redirect: () => redirect.stats(),
    retention: () => retention.stats(),
    replayed: () => replayedClicks,
    db: database.db,
    now,
  });
  // Leads and sales append in the caller's transaction (ConversionStore); the log's own appends (its batches) are timed too.
  metrics?.timeAppends(ctx.conversions, 'append', 'events');
  metrics?.timeAppends(ctx.events, 'append', 'events');
  metrics?.timeAppends(ctx.events, 'appendRawClicks', 'click_batch');
  metrics?.timeAppends(ctx.events, 'appendClickRing', 'click_batch');

  // A link's webhookIds or folder decide whether webhooks hear about its clicks.
  ctx.bus.subscribe((change) => {
    if (change.type === 'link') webhooks.linksChanged();
  });
  // The redirect's caches live on the front's thread: every change goes there too.
  const toFront = options.apiThread ? forwardChanges(ctx.bus, options.apiThread.changes) : undefined;

  // Modules, in dependency order (links → redirect → tracking; analytics reads what they write).
  const audit = createAuditModule({ database });
  const tags = createTagsModule(ctx);
  const folders = createFoldersModule(ctx);
  const domains = createDomainsModule(ctx);
  const links = createLinksModule(ctx);
  const customers = createCustomersModule(ctx);
  const bio = createBioModule(ctx, { onChange: toFront?.bioSaved });
  const redirect = options.apiThread ? createFrontRedirect(options.apiThread) : createRedirectModule(ctx, { links, bio: bio.pages });
  const tracking = createTrackingModule(ctx, { links, customers, redirect });
  const integrations = createIntegrationsModule(ctx, { tracking });
  const analytics = createAnalyticsModule(ctx, { onError: (err, context) => app.log.warn({ err }, context) });
  const abTests = createAbTestsModule(ctx, { links, onError: (err, context) => app.log.warn({ err }, context) });
  const journeys = createJourneysModule(ctx, { customers });
  const qr = createQrModule(ctx);
  const mail = mailer ? { write: (trx: Kysely<Database>, intent: MailIntent, workspaceId: string) => domainEvents.outbox.write(trx, [mailEntry(intent, workspaceId, now())]), nudge: () => domainEvents.outbox.nudge() } : undefined;
  const users = createUsersModule({ database, now, mail });
  const sso = config.oidc
    ? createSsoModule(config.oidc, { db: database.db, baseUrl: config.baseUrl, workspaces: ctx.workspaces, now, log: (message, details) => app.log.warn(details, message) })
    : undefined;
  const imports = createImportsModule(ctx, { links, tags, domains });
  const exports = createExportsModule({ links, analytics, perWorkspace: config.exportsPerWorkspace, database, traces });
  const utmTemplates = createUtmTemplatesModule(ctx);
  // Tools over the same services the routes call (src/mcp/).
  const mcp = createMcpModule({ links: links.service, domains: domains.service, tags: tags.service, customers: customers.service, analytics: analytics.service, qr: qr.renderer, docsUrl: config.docsUrl });
  const tls = createTlsModule(ctx, { onError: (err, context) => app.log.warn({ err }, context), warn: (message) => app.log.warn(message) });
  const dashboard = createDashboardModule(ctx, {
    users,
    links: links.service,
    tags: tags.service,
    folders: folders.service,
    domains,
    services: { analytics: analytics.service, customers: customers.service, domains: domains.service, tags: tags.service, folders: folders.service, webhooks: webhooks.service, utmTemplates: utmTemplates.service, abTests: abTests.service, journeys: journeys.service },
    imports: imports.requests,
    importJobs: imports.runner,
    exports: exports.service,
    audit: audit.service,
    sso,
    integrations: integrations.service,
    bio: bio.service,
  });
  const retention = createRetention({
    config,
    database,
    // Its passes run on the log thread, through ctx.events.
    events: ctx.events,
    audit: audit.service,
    now,
    onError: (err) => app.log.error({ err }, 'event retention pass failed; the next one retries'),
  });
  // Spill files replayed at this start (main.ts calls it), for waymark_clicks_replayed_total.
  const replaySpilledClicks = redirect.replaySpilledClicks;
  redirect.replaySpilledClicks = async () => {
    const result = await replaySpilledClicks();
    replayedClicks += result.written;
    return result;
  };
  // The reader closes last but one: the lifecycles before it may still read through it; the
  // publisher is last, closed after the modules whose writes it delivers.
  // Webhooks start first: the registry's answers (which events anyone wants) are loaded before
  // anything is written.
  // The event log closes after the redirect (its last batches) and tracking, before the reader.
  const lifecycles: Lifecycle[] = [...(metrics ? [metrics.lifecycle] : []), webhooks.lifecycle, retention.lifecycle, analytics.lifecycle, abTests.lifecycle, redirect.lifecycle, tls.lifecycle, tracking.lifecycle, qr.lifecycle, imports.lifecycle, bio.lifecycle, { close: () => eventLog.close() }, { close: () => reader.close() }, domainEvents.lifecycle, { close: () => traces.close() }];

  // Short-link hosts are answered before Fastify's routing: the redirect is the hot path and
  // skips every hook, parser and schema of the API (issue 4).
  // While redirects saturate the loop, API requests start at a bounded rate (http/api-admission.ts).
  let fastifyHandler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const admission = createApiAdmission({ ratePerSecond: config.apiAdmissionRate });
  const serverFactory = (handler: (req: IncomingMessage, res: ServerResponse) => void): Server => {
    fastifyHandler = handler;
    const route = (req: IncomingMessage, res: ServerResponse) => {
      if (redirect.tryHandle(req, res)) return admission.redirected();
      // The health probe is never deferred: an orchestrator would take a wait for a dead process.
      if (req.url === '/health') return fastifyHandler!(req, res);
      admission.admit(() => fastifyHandler!(req, res));
    };
    if (options.apiThread) return apiThreadServer(handler);
    return options.starting ? options.starting.adopt(route) : createServer(route);
  };

  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    // The front is this server's only client: its kept-alive connections stay open.
    ...(options.apiThread ? { keepAliveTimeout: 600_000 } : {}),
    serverFactory,
    trustProxy: clientAddress.fastifyTrust,
    bodyLimit: 4 * 1024 * 1024,
    genReqId: () => `req_${Math.random().toString(36).slice(2, 12)}`,
    // One line per request (request-log.ts) instead of Fastify's two.
    logController: new OneLinePerRequest(),
    // Path parameters carry 190-character domain slugs and `ext_` + 255-character external ids;
    // find-my-way's default limit of 100 would answer 414 for them.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    // Refusals before any route runs (router, HTTP parser) get the spec's error body too.
    frameworkErrors: frameworkErrorHandler(config.docsUrl),
    clientErrorHandler: clientErrorHandler(config.docsUrl),
  }).withTypeProvider<ZodTypeProvider>();

  // Requests deferred by the admission start before the server drains its requests.
  app.addHook('preClose', async () => admission.close());

  // Every route, so tests can check that the OpenAPI document lists each public operation.
  const routes: { method: string; url: string; hidden: boolean }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method, url: route.url, hidden: !!(route.schema as { hide?: boolean } | undefined)?.hide });
  });
  for (const [fields, msg] of upgradeLines) app.log.info(fields, msg);
  for (const l of logLines ?? []) app.log[l.level](l.fields, l.msg);
  appReady = true;
  if (config.trustProxy.kind === 'all') {
    app.log.warn(
      'TRUST_PROXY=true takes the left-most X-Forwarded-For address, which any client can write: per-address limits and visitor addresses can be spoofed. Set the number of proxies in front (TRUST_PROXY=1) or their addresses instead.',
    );
  }

  app.setValidatorCompiler(validatorCompiler);
  // Response schemas document the API; responses are not re-validated at run time, which would
  // cost CPU on every call. The SDK-driven tests check every response shape instead.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  installErrorHandlers(app, config.docsUrl);
  installInputGuards(app);
  await app.register(clientAddressPlugin, { rule: clientAddress });
  // Before authentication: a preflight carries no key (browser extensions, http/cors.ts).
  await app.register(corsPlugin);
  metrics?.instrumentRequests(app);
  if (traces.enabled) traceRequests(app, traces);

  await app.register(openApiPlugin, { baseUrl: config.baseUrl });
  const limits = createRateLimits(database, {
    perMinute: config.rateLimitPerMinute,
    analyticsPerSecond: config.analyticsRateLimitPerSecond,
    qrPerMinute: config.qrRateLimitPerMinute,
    tlsAllowPerMinute: config.tlsAllowRateLimitPerMinute,
    failedAuthPerMinute: config.failedAuthRateLimitPerMinute,
    log: app.log,
    inMemory: options.processLocalRateCounters,
  });
  await app.register(authPlugin, { workspaces, onUnauthorized: limits.countFailedAuth });
  await app.register(limits.plugin);

  if (metrics) await app.register(metrics.routes, { onUnauthorized: limits.countFailedAuth });
  await app.register(healthRoutes, { readiness: options.readiness ?? createReadiness('serving'), ping: () => database.ping() });

  await app.register(errorDocsRoutes);
  await app.register(workspaceRoutes, { workspaces });
  await app.register(tags.routes);
  await app.register(folders.routes);
  await app.register(domains.routes);
  await app.register(links.routes);
  await app.register(customers.routes);
  await app.register(tracking.routes);
  await app.register(integrations.routes);
  await app.register(analytics.routes);
  await app.register(abTests.routes);
  await app.register(journeys.routes);
  await app.register(qr.routes);
  await app.register(webhooks.routes);
  await app.register(dashboard.routes);
  await app.register(imports.routes);
  await app.register(exports.routes);
  await app.register(tls.routes);
  await app.register(audit.routes);
  await app.register(mcp.routes);

  // The log thread opened its store meanwhile (an upgrade may still run): the modules start on it.
  try {
    await eventLog.opened;
  } catch (err) {
    await eventLog.close();
    throw err;
  }
  for (const l of lifecycles) await l.start?.();
  app.addHook('onClose', async () => {
    // Fastify has stopped accepting connections and drained requests: flush what is buffered.
    for (const l of lifecycles) await l.close?.();
  });

  await app.ready();
  return { app: app as unknown as FastifyInstance, ctx, routes, modules: { tags, folders, utmTemplates, bio, domains, links, customers, redirect, tracking, integrations, analytics, abTests, journeys, qr, events: domainEvents, webhooks, retention, users, dashboard, imports, exports, tls, metrics, audit } };
}

/**
 * The API thread's server (src/api-thread/): no redirect before it, no admission (the redirect has
 * a thread of its own). Its connections come from the front over a Unix socket, which has no peer
 * address: they read as loopback, the front's, so X-Forwarded-For is walked from there.
 */
function apiThreadServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const server = createServer(handler);
  server.on('connection', (socket) => {
    if (socket.remoteAddress === undefined) Object.defineProperty(socket, 'remoteAddress', { value: '127.0.0.1', configurable: true });
  });
  return server;
}

/**
 * Webhooks module (issue 15): the management routes, the outbox subscriber that fans domain events
 * out to deliveries (fanout.ts; clicks are recorded as one row per click batch by the batch itself,
 * click-batches.ts, and expanded by the dispatcher, click-expand.ts), and the dispatcher that sends
 * them fairly (dispatcher.ts, fairness.ts). Built before the
 * events module, which registers `subscriber`. Its lifecycle loads the webhook cache (triggers,
 * click routes) before the app serves, refreshes it every few seconds (other processes' changes),
 * and starts and stops the dispatcher: on a thread of its own wherever a worker can open the
 * database (a SQLite file, PostgreSQL: dispatch-worker.ts), started once a webhook exists; in
 * process for an in-memory database.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import type { Lifecycle } from '../lifecycle.js';
import { createWebhookStore } from './store.js';
import { createDeliveryStore } from './delivery-store.js';
import { createDispatcher, dispatcherLog } from './dispatcher.js';
import { startDispatcherThread, type DispatcherHandle } from './dispatch-thread.js';
import { createFanout } from './fanout.js';
import { createClickExpander } from './click-expand.js';
import { createWebhookService } from './service.js';
import { webhookRoutes } from './routes.js';
import { refusedTarget } from '../outbound/request.js';
import { NO_TRACES, type Traces } from '../tracing/traces.js';

/** How often the subscription cache is reloaded for changes made by other processes. */
const REFRESH_MS = 5_000;

export function createWebhooksModule(deps: { config: Config; database: OpenDatabase; now: () => number; traces?: Traces }) {
  const { config, database, now } = deps;
  const store = createWebhookStore(database.db);
  // One writing process on a SQLite file; several on PostgreSQL, which skip each other's claims.
  const deliveries = createDeliveryStore(database.db, { skipLocked: !database.capabilities.singleWriter, mailAlerts: !!config.smtpUrl });
  const log = dispatcherLog(config.logLevel);
  // Set below: a disabled webhook leaves the cache of enabled ones (its clicks stop being routed).
  let reload = (): void => {};
  const onDisabled = () => reload();
  // PostgreSQL could dispatch in process (its driver is asynchronous), but the sends' CPU would
  // stay on the redirect thread; one path on both engines is also the one the tests exercise.
  const onThread = database.capabilities.writerThread;
  const fairness = {
    concurrency: config.webhookConcurrency, receiverConcurrency: config.webhookReceiverConcurrency,
    sendTimeoutMs: config.webhookSendTimeoutMs, receiverBackoffMs: config.webhookReceiverBackoffMs,
  };
  const linkSettings = { baseUrl: config.baseUrl, shortLinkProtocol: config.shortLinkProtocol };
  const dispatcher: DispatcherHandle = onThread
    ? startDispatcherThread(
        {
          url: database.url, pgSchema: database.pgSchema, nice: config.clickWriterNice, allowPrivate: config.webhookAllowPrivate,
          retryDelaysMs: config.webhookRetryDelaysMs, pollMs: config.webhookPollMs, leaseMs: config.webhookLeaseMs, logLevel: config.logLevel, ...fairness, linkSettings,
          mailAlerts: !!config.smtpUrl, tracing: config.tracing,
        },
        { onDisabled, onError: (err) => log('error', 'webhook dispatcher thread failed; it starts again at the next delivery', { err: String((err as Error)?.message ?? err) }) },
      )
    : createDispatcher({
        deliveries,
        webhooks: store,
        now,
        allowPrivate: config.webhookAllowPrivate,
        retryDelaysMs: config.webhookRetryDelaysMs,
        pollMs: config.webhookPollMs,
        leaseMs: config.webhookLeaseMs,
        ...fairness,
        clicks: createClickExpander({ db: database.db, settings: linkSettings }),
        log,
        onDisabled,
        traces: deps.traces ?? NO_TRACES,
      });
  const fanout = createFanout({ webhooks: store, deliveries, now, nudge: () => dispatcher.nudge() });
  /** Reloads the cache; the dispatcher's thread starts once there is a webhook to send for. */
  const refresh = async () => {
    await fanout.refresh();
    if (fanout.active()) dispatcher.start();
  };
  reload = () => void refresh().catch(() => undefined);
  const service = createWebhookService({
    store, deliveries, now, changed: refresh, nudge: () => dispatcher.nudge(),
    refusedUrl: (url) => refusedTarget(url, { allowPrivate: config.webhookAllowPrivate }),
  });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(webhookRoutes, { webhooks: service });
  };
  let timer: NodeJS.Timeout | null = null;
  const lifecycle: Lifecycle = {
    async start() {
      await refresh();
      timer = setInterval(reload, REFRESH_MS);
      timer.unref();
      if (!onThread) dispatcher.start();
    },
    async close() {
      if (timer) clearInterval(timer);
      await dispatcher.close();
    },
  };
  return { routes, service, subscriber: fanout.subscriber, dispatcher, lifecycle, linksChanged: fanout.linksChanged };
}
export type WebhooksModule = ReturnType<typeof createWebhooksModule>;

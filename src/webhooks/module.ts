/**
 * Webhooks module (issue 15): the management routes, the outbox subscriber that fans domain events
 * out to deliveries (fanout.ts), and the dispatcher that sends them (dispatcher.ts). Built before
 * the events module, which registers `subscriber`. Its lifecycle loads the subscription cache
 * before the app serves, refreshes it every few seconds (other processes' changes), and starts
 * and stops the dispatcher.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import type { Lifecycle } from '../context.js';
import { createWebhookStore } from './store.js';
import { createDeliveryStore } from './delivery-store.js';
import { createDispatcher } from './dispatcher.js';
import { createFanout } from './fanout.js';
import { createWebhookService } from './service.js';
import { webhookRoutes } from './routes.js';

/** How often the subscription cache is reloaded for changes made by other processes. */
const REFRESH_MS = 5_000;

export function createWebhooksModule(deps: { config: Config; database: OpenDatabase; now: () => number }) {
  const { config, database, now } = deps;
  const store = createWebhookStore(database.db);
  // One writing process on a SQLite file; several on PostgreSQL, which skip each other's claims.
  const deliveries = createDeliveryStore(database.db, { skipLocked: !database.capabilities.singleWriter });
  const dispatcher = createDispatcher({
    deliveries,
    webhooks: store,
    now,
    allowPrivate: config.webhookAllowPrivate,
    retryDelaysMs: config.webhookRetryDelaysMs,
    pollMs: config.webhookPollMs,
    leaseMs: config.webhookLeaseMs,
    log: (level, msg, fields) => {
      if (config.logLevel === 'silent' || (level === 'warn' && ['fatal', 'error'].includes(config.logLevel))) return;
      console.error(JSON.stringify({ level: level === 'warn' ? 40 : 50, time: Date.now(), msg, ...fields }));
    },
  });
  const fanout = createFanout({ webhooks: store, deliveries, now, nudge: () => dispatcher.nudge() });
  const service = createWebhookService({ store, deliveries, now, changed: fanout.refresh, nudge: () => dispatcher.nudge() });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(webhookRoutes, { webhooks: service });
  };
  let timer: NodeJS.Timeout | null = null;
  const lifecycle: Lifecycle = {
    async start() {
      await fanout.refresh();
      timer = setInterval(() => void fanout.refresh().catch(() => undefined), REFRESH_MS);
      timer.unref();
      dispatcher.start();
    },
    async close() {
      if (timer) clearInterval(timer);
      await dispatcher.close();
    },
  };
  return { routes, service, subscriber: fanout.subscriber, dispatcher, lifecycle, linksChanged: fanout.linksChanged };
}
export type WebhooksModule = ReturnType<typeof createWebhooksModule>;

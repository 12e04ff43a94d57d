/**
 * Tracking module: POST /track/lead, POST /track/sale and the client script GET /script.js.
 * Its lifecycle drains the writes of `async` leads on shutdown, so an answered lead is written
 * before the database closes.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Lifecycle } from '../lifecycle.js';
import type { RedirectModule } from '../redirect/module.js';
import type { CustomersModule } from '../customers/module.js';
import type { LinksModule } from '../links/module.js';
import { createKeyedSerialQueue } from './serial.js';
import { createLeadService } from './lead.js';
import { createSaleService } from './sale.js';
import { createCurrencyConverter } from './currency.js';
import { buildClientScript } from './script.js';
import { trackingRoutes } from './routes.js';
import type { TrackDeps } from './deps.js';
import { createLinkCounters } from '../events/index.js';

export function createTrackingModule(ctx: AppContext, deps: { links: LinksModule; customers: CustomersModule; redirect: RedirectModule }) {
  // Errors of `after` work are logged inside the lead service; this is the last resort.
  const queue = createKeyedSerialQueue((key, err) => console.error('waymark: tracking background write failed', key.split('\u0000')[0], err));
  const trackDeps: TrackDeps = {
    db: ctx.database.db,
    dialect: ctx.database.dialect,
    events: ctx.events,
    conversions: ctx.conversions,
    counters: createLinkCounters(ctx.database.dialect),
    now: ctx.now,
    clicks: deps.redirect.clicks,
    customers: deps.customers.storeFor,
    queue,
  };
  const fx = createCurrencyConverter({
    file: ctx.config.currencyRatesFile,
    onReloadError: (err) => console.error(`waymark: keeping the previous currency rates: ${err.message}`),
  });
  const leads = createLeadService(trackDeps, ctx.outbox);
  const sales = createSaleService(trackDeps, fx, ctx.outbox);
  const clientScript = buildClientScript(ctx.config.clickIdParam);

  const routes: FastifyPluginAsync = async (app) => {
    await app.register(trackingRoutes, { leads, sales, clientScript });
  };
  const lifecycle: Lifecycle = {
    close: () => queue.drain(),
  };
  return { routes, lifecycle, leads, sales, currency: fx, queue, deps: trackDeps };
}
export type TrackingModule = ReturnType<typeof createTrackingModule>;

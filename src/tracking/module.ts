/**
 * Tracking module (stub until the conversions issue lands): POST /track/lead and /track/sale.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { RedirectModule } from '../redirect/module.js';
import type { CustomersModule } from '../customers/module.js';
import type { LinksModule } from '../links/module.js';

export function createTrackingModule(_ctx: AppContext, _deps: { links: LinksModule; customers: CustomersModule; redirect: RedirectModule }) {
  const routes: FastifyPluginAsync = async () => {};
  return { routes };
}
export type TrackingModule = ReturnType<typeof createTrackingModule>;

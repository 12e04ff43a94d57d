/**
 * `POST /track/lead`, `POST /track/sale` and the public client script `GET /script.js`.
 * The track endpoints need a business plan or higher and no key scope (behaviour.md §2.7, §4).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { LeadService } from './lead.js';
import type { SaleService } from './sale.js';
import { TrackLeadBody, TrackLeadResponse, TrackSaleBody, TrackSaleResponse } from './schema.js';

export interface TrackingRouteOptions {
  leads: LeadService;
  sales: SaleService;
  /** Source of /script.js, built once at start. */
  clientScript: string;
}

export const trackingRoutes: FastifyPluginAsyncZod<TrackingRouteOptions> = async (app, { leads, sales, clientScript }) => {
  app.post(
    '/track/lead',
    {
      config: { minPlan: 'business' },
      schema: {
        tags: ['Track'],
        operationId: 'trackLead',
        summary: 'Track a lead',
        body: TrackLeadBody,
        response: { 200: TrackLeadResponse },
      },
    },
    (req) => leads.track(req.auth.workspaceId, req.body, req.log),
  );

  app.post(
    '/track/sale',
    {
      config: { minPlan: 'business' },
      schema: {
        tags: ['Track'],
        operationId: 'trackSale',
        summary: 'Track a sale',
        body: TrackSaleBody,
        response: { 200: TrackSaleResponse },
      },
    },
    (req) => sales.track(req.auth.workspaceId, req.body, req.log),
  );

  app.get('/script.js', { config: { public: true }, schema: { hide: true } }, async (_req, reply) => {
    return reply
      .header('content-type', 'application/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(clientScript);
  });
};

/** `GET /customers/{id}/journey`: read-only, on the customers API's plan and permissions. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CustomerParams } from '../customers/schema.js';
import type { JourneyService } from './service.js';
import { JourneyQuery, JourneyResponse } from './schema.js';

export const journeyRoutes: FastifyPluginAsyncZod<{ journeys: JourneyService }> = async (app, { journeys }) => {
  app.get(
    '/customers/:id/journey',
    {
      config: { minPlan: 'business', permission: 'analytics.read' },
      schema: {
        tags: ['Customers'],
        operationId: 'getCustomerJourney',
        summary: "Retrieve a customer's journey",
        description: "The customer's clicks (on any link), leads and sales, oldest first, with revenue by link under each attribution model. Waymark's addition; docs/attribution.md.",
        params: CustomerParams,
        querystring: JourneyQuery,
        response: { 200: JourneyResponse },
      },
    },
    (req) => journeys.of(req.auth.workspaceId, req.params.id, req.query),
  );
};

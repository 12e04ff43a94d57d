/**
 * `GET /analytics` and `GET /events`: validate, call the service, return.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AnalyticsService } from './service.js';
import { AnalyticsQuery, AnalyticsResponse, EventsQuery, EventsResponse } from './schema.js';

export const analyticsRoutes: FastifyPluginAsyncZod<{ analytics: AnalyticsService }> = async (app, { analytics }) => {
  app.get(
    '/analytics',
    {
      config: { permission: 'analytics.read' },
      schema: {
        tags: ['Analytics'],
        operationId: 'retrieveAnalytics',
        summary: 'Retrieve analytics for a link, a domain, or the authenticated workspace',
        description:
          'Counts of clicks, leads and sales, grouped by `type` (the published API and SDK call it `groupBy`; both are accepted).',
        querystring: AnalyticsQuery,
        response: { 200: AnalyticsResponse },
      },
    },
    (req) => analytics.retrieve(req.auth, req.query),
  );

  app.get(
    '/events',
    {
      config: { permission: 'analytics.read', minPlan: 'business' },
      schema: {
        tags: ['Events'],
        operationId: 'listEvents',
        summary: 'Retrieve a list of events',
        description: 'Click, lead or sale events of the workspace, newest first. Requires the Business plan or higher.',
        querystring: EventsQuery,
        response: { 200: EventsResponse },
      },
    },
    (req) => analytics.listEvents(req.auth, req.query),
  );
};

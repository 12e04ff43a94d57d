/**
 * `GET /links/{linkId}/ab-test`: the link's A/B test result. Read-only; the link object is
 * unchanged.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { LinkService } from '../links/service.js';
import { callerOf } from '../links/routes.js';
import { LinkIdParams } from '../links/schema.js';
import type { AbTestService } from './service.js';
import { AbTestQuery, AbTestResponse } from './schema.js';

export const abTestRoutes: FastifyPluginAsyncZod<{ abTests: AbTestService; links: LinkService }> = async (app, { abTests, links }) => {
  app.get(
    '/links/:linkId/ab-test',
    {
      config: { permission: 'analytics.read', minPlan: 'business' },
      schema: {
        tags: ['Links'],
        operationId: 'getLinkAbTest',
        summary: "Retrieve a link's A/B test result",
        description:
          "Per variant clicks, leads, sales, revenue and the test metric's rate with a 95 % interval, the two-proportion test against the leader, and the verdict: a winner only when significant. Waymark's addition; docs/ab-tests.md.",
        params: LinkIdParams,
        querystring: AbTestQuery,
        response: { 200: AbTestResponse },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const link = await links.get(caller, req.params.linkId);
      return abTests.result(caller.workspaceId, link, req.query);
    },
  );
};

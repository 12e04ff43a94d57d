/**
 * Pages that read Waymark's own analyses through the API's services:
 *
 * - `GET /dashboard/w/:slug/links/:id/ab-test?metric=`: the link's A/B test result, as
 *   `GET /links/{linkId}/ab-test`;
 * - `GET /dashboard/w/:slug/customers/:id/journey`: the customer's journey, as
 *   `GET /customers/{id}/journey`.
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Kit } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import { parseInput } from '../../users/schema.js';
import { assertPlan } from '../../access/auth.js';
import type { LinkService } from '../../links/service.js';
import { TEST_METRICS } from '../../ab-tests/verdict.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { callerOf } from './link-choices.js';
import { AbTestPage } from '../pages/ab-test.js';
import { JourneyPage } from '../pages/journey.js';

const AbTestPageQuery = z.object({ metric: z.enum(TEST_METRICS).default('leads') });

export function insightRoutes(kit: Kit, services: PageServices, links: LinkService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { slug: string; id: string }; Querystring: unknown }>('/dashboard/w/:slug/links/:id/ab-test', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(AbTestPageQuery, request.query);
      // Another workspace's link answers 404, as the API does.
      const link = await links.get(callerOf(page), request.params.id);
      const report = await services.abTests.result(page.workspace.id, link, { metric: q.metric });
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(reply, <AbTestPage frame={frame} link={link} report={report} />);
    });

    app.get<{ Params: { slug: string; id: string } }>('/dashboard/w/:slug/customers/:id/journey', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      assertPlan(apiCallerOf(page), 'business', 'Customer journeys');
      const journey = await services.journeys.of(page.workspace.id, request.params.id);
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(reply, <JourneyPage frame={frame} journey={journey} />);
    });
  };
}

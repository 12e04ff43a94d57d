/**
 * Pages that read Waymark's own analyses through the API's services:
 *
 * - `GET /dashboard/w/:slug/links/:id/ab-test?metric=`: the link's A/B test result, as
 *   `GET /links/{linkId}/ab-test` (the stored metric unless one is asked for);
 * - `POST /dashboard/w/:slug/links/:id/ab-test/settings`: its stored settings (metric, what an
 *   inconclusive test does), as `PATCH /links/{linkId}/ab-test/settings`; owners and members;
 * - `GET /dashboard/w/:slug/customers/:id/journey`: the customer's journey, as
 *   `GET /customers/{id}/journey`.
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Kit } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { workspacePath } from '../layout.js';
import { parseInput } from '../../users/schema.js';
import { assertPlan } from '../../access/auth.js';
import type { LinkService } from '../../links/service.js';
import { ON_INCONCLUSIVE, TEST_METRICS } from '../../ab-tests/verdict.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { callerOf } from './link-choices.js';
import { AbTestPage } from '../pages/ab-test.js';
import { JourneyPage } from '../pages/journey.js';

const AbTestPageQuery = z.object({ metric: z.enum(TEST_METRICS).optional(), saved: z.literal('1').optional() });
const AbTestSettingsForm = z.object({ metric: z.enum(TEST_METRICS, { error: 'Choose a metric.' }), onInconclusive: z.enum(ON_INCONCLUSIVE, { error: 'Choose what happens without a winner.' }) });

export function insightRoutes(kit: Kit, services: PageServices, links: LinkService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { slug: string; id: string }; Querystring: unknown }>('/dashboard/w/:slug/links/:id/ab-test', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(AbTestPageQuery, request.query);
      // Another workspace's link answers 404, as the API does.
      const link = await links.get(callerOf(page), request.params.id);
      const report = await services.abTests.result(page.workspace.id, link, { metric: q.metric });
      const settings = await services.abTests.settings(page.workspace.id, link.id);
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(reply, <AbTestPage frame={frame} link={link} report={report} settings={settings} saved={q.saved === '1'} />);
    });

    app.post<{ Params: { slug: string; id: string }; Body: unknown }>('/dashboard/w/:slug/links/:id/ab-test/settings', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const input = parseInput(AbTestSettingsForm, request.body ?? {});
      const link = await links.get(callerOf(page), request.params.id);
      await services.abTests.saveSettings({ workspaceId: page.workspace.id, who: page.who }, link.id, input);
      return redirect(reply, workspacePath(page.workspace.slug, `/links/${encodeURIComponent(link.id)}/ab-test?saved=1`));
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

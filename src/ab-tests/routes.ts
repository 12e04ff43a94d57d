/**
 * `GET /links/{linkId}/ab-test`: the link's A/B test result. `GET`/`PATCH
 * /links/{linkId}/ab-test/settings`: its metric and what an inconclusive test does. The link
 * object is unchanged by either (the published shape knows none of it).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { LinkService } from '../links/service.js';
import { callerOf } from '../links/routes.js';
import { LinkIdParams } from '../links/schema.js';
import type { AbTestService } from './service.js';
import { AbTestQuery, AbTestResponse, AbTestSettingsBody, AbTestSettingsResponse } from './schema.js';

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

  app.get(
    '/links/:linkId/ab-test/settings',
    {
      config: { permission: 'links.read', minPlan: 'business' },
      schema: {
        tags: ['Links'],
        operationId: 'getLinkAbTestSettings',
        summary: "Retrieve a link's A/B test settings",
        description: "The metric the test's winner is decided on and what happens when it ends without a significant winner. Waymark's addition; docs/ab-tests.md.",
        params: LinkIdParams,
        response: { 200: AbTestSettingsResponse },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const link = await links.get(caller, req.params.linkId);
      return abTests.settings(caller.workspaceId, link.id);
    },
  );

  app.patch(
    '/links/:linkId/ab-test/settings',
    {
      config: { permission: 'links.write', minPlan: 'business' },
      schema: {
        tags: ['Links'],
        operationId: 'updateLinkAbTestSettings',
        summary: "Update a link's A/B test settings",
        description:
          "Sets the metric (`leads`, `clicks`, `sales`, `revenue`) and what the redirect does when the test ends without a significant winner (`keep_splitting` or `stop`). A completed test is decided again under the new settings within a minute. Waymark's addition; docs/ab-tests.md.",
        params: LinkIdParams,
        body: AbTestSettingsBody,
        response: { 200: AbTestSettingsResponse },
      },
    },
    async (req) => {
      const caller = callerOf(req);
      const link = await links.get(caller, req.params.linkId);
      return abTests.saveSettings(caller, link.id, req.body);
    },
  );
};

/**
 * Analytics: `GET /dashboard/w/:slug/analytics?<the API's /analytics parameters>`. The figures are
 * the analytics service's answers to the same query (`analytics/load.ts`); the link, domain, tag
 * and folder choices of the filter form come from the API's list services.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Kit } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import type { LinkService } from '../../links/service.js';
import { ListDomainsQuery } from '../../domains/schema.js';
import { ListFoldersQuery } from '../../folders/schema.js';
import { ListTagsQuery } from '../../tags/schema.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { loadAnalytics } from '../analytics/load.js';
import { CARDS, pageParamsOf } from '../analytics/query.js';
import { AnalyticsPage } from '../pages/analytics.js';

/** Links offered in the link filter (newest first); others are reached from the Top links card. */
const LINK_CHOICES = 100;

export function analyticsRoutes(kit: Kit, services: PageServices, links: LinkService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/analytics', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const params = pageParamsOf(request.query);
      const auth = apiCallerOf(page);
      const ws = page.workspace.id;
      const [data, linkRows, domains, tags, folders] = await Promise.all([
        loadAnalytics(services.analytics, auth, params, CARDS),
        links.list({ workspaceId: ws, workspace: page.workspace, userId: page.userId }, { pageSize: LINK_CHOICES, sortBy: 'createdAt', sortOrder: 'desc' }),
        services.domains.list(ws, ListDomainsQuery.parse({})),
        services.tags.list(ws, ListTagsQuery.parse({})),
        services.folders.list(ws, ListFoldersQuery.parse({})),
      ]);
      const choices = {
        linkId: linkRows.map((l) => ({ value: l.id, label: l.shortLink })),
        domain: domains.map((d) => ({ value: d.slug, label: d.slug })),
        tagIds: tags.map((t) => ({ value: t.id, label: t.name })),
        folderId: folders.map((f) => ({ value: f.id, label: f.name })),
      };
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(reply, <AnalyticsPage frame={frame} params={params} data={data} choices={choices} />);
    });
  };
}

/**
 * `GET /stats/:domain/:key` (the key may contain slashes): the public stats page of a link with
 * `publicStats: true`, open without login (`config.anonymous`). Any other link, or none, is 404
 * with the same page, so the address reveals nothing. The figures are the analytics service's
 * for that one link (`linkId` filter), read as the link's workspace: clicks, and leads, sales and
 * revenue only when the owner turned "Show conversions" on (`links.public_stats_conversions`).
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { DashboardDeps } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import { ApiError } from '../../http/errors.js';
import type { LinkService } from '../../links/service.js';
import { parseInput } from '../../users/schema.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { loadAnalytics } from '../analytics/load.js';
import { CARDS } from '../analytics/query.js';
import { PUBLIC_INTERVALS, PublicStatsPage, publicStatsPath } from '../pages/public-stats.js';

/** The cards a public page shows: where visitors come from and on what, not who they are. */
const PUBLIC_CARDS = CARDS.filter((c) => ['countries', 'devices', 'browsers', 'referers'].includes(c.groupBy));

const PublicQuery = z.object({
  interval: z.enum(PUBLIC_INTERVALS.map((i) => i.interval) as ['24h', ...string[]]).default('30d'),
});

export function publicStatsRoutes({ workspaces }: DashboardDeps, services: PageServices, links: LinkService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { domain: string; '*': string }; Querystring: unknown }>(
      '/stats/:domain/*',
      { config: { anonymous: true }, schema: HIDDEN },
      async (request, reply) => {
        const { domain } = request.params;
        const key = request.params['*'] || '_root';
        const link = domain.length <= 190 && key.length <= 190 ? await links.findByDomainKey(domain, key) : undefined;
        const workspace = link && link.public_stats === 1 ? await workspaces.findWorkspace(link.workspace_id) : undefined;
        if (!link || !workspace) throw new ApiError('not_found', 'There are no public stats at this address.');
        const { interval } = parseInput(PublicQuery, request.query);
        const auth = apiCallerOf({ workspace, userId: 'public-stats' });
        const data = await loadAnalytics(services.analytics, auth, { interval, linkId: link.id }, PUBLIC_CARDS);
        const path = publicStatsPath(link.domain, link.key);
        // Public, but per link and changing with every click: not kept by shared caches.
        // Leads, sales and revenue only when the owner turned them on (the page then prints them).
        const conversions = link.public_stats_conversions === 1;
        return sendPage(reply, <PublicStatsPage shortLink={link.short_link} path={path} interval={interval} data={data} conversions={conversions} />);
      },
    );
  };
}

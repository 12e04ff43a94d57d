/**
 * Links: the list (`GET /dashboard/w/:slug/links`) and archive/unarchive, both through the links
 * service the API uses (same filters, same rules, same workspace scoping).
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { LinksPage } from '../pages/links.js';
import { workspacePath } from '../layout.js';
import type { Caller, LinkService } from '../../links/service.js';
import { parseInput } from '../../users/schema.js';

export const LINKS_PAGE_SIZE = 50;

const ListQuery = z.object({
  search: z.string().max(200).optional().default(''),
  showArchived: z.enum(['true', 'false']).optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional().default(1),
});

/** The dashboard user writes as the workspace; the link's `userId` records who. */
function callerOf(page: WorkspacePage): Caller {
  return { workspaceId: page.workspace.id, workspace: page.workspace, userId: page.userId };
}

export function linkRoutes(kit: Kit, links: LinkService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/links', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(ListQuery, request.query);
      const showArchived = q.showArchived === 'true';
      const filters = { search: q.search || undefined, showArchived };
      const caller = callerOf(page);
      const [rows, total] = await Promise.all([
        links.list(caller, { ...filters, page: q.page, pageSize: LINKS_PAGE_SIZE, sortBy: 'createdAt', sortOrder: 'desc' }),
        links.count(caller, filters),
      ]);
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      const view = { frame, links: rows, search: q.search, showArchived, page: q.page, pageSize: LINKS_PAGE_SIZE, total: Number(total) };
      return sendPage(reply, <LinksPage {...view} />);
    });

    app.post<{ Params: { slug: string; id: string }; Body: Record<string, string | undefined> }>('/dashboard/w/:slug/links/:id/archive', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      await links.update(callerOf(page), request.params.id, { archived: request.body?.archived !== 'false' });
      return redirect(reply, workspacePath(page.workspace.slug, '/links'));
    });
  };
}

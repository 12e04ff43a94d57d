/**
 * Links: the list (`GET /dashboard/w/:slug/links`) and archive/unarchive, both through the links
 * service the API uses (same filters, same rules, same workspace scoping).
 *
 * The list pages by cursor (`?after=<linkId>` older, `?before=<linkId>` newer), asking one row
 * more than it shows to know whether another page follows. No total is counted: at 100,000 links
 * a count costs more than the page itself (bench/dashboard-links.ts), and offsets deep into the
 * list grow with the offset; a cursor page costs the same wherever it is.
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

const LinkId = z.string().regex(/^link_\w{1,60}$/, 'must be a link id');
const ListQuery = z.object({
  search: z.string().max(200).optional().default(''),
  showArchived: z.enum(['true', 'false']).optional(),
  after: LinkId.optional(),
  before: LinkId.optional(),
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
      const rows = await links.list(callerOf(page), {
        search: q.search || undefined,
        showArchived,
        pageSize: LINKS_PAGE_SIZE + 1,
        sortBy: 'createdAt',
        sortOrder: 'desc',
        ...(q.before ? { endingBefore: q.before } : q.after ? { startingAfter: q.after } : {}),
      });
      // Newest first; the extra row is the newest when reading backwards, the oldest otherwise.
      const more = rows.length > LINKS_PAGE_SIZE;
      const shown = q.before ? rows.slice(more ? 1 : 0) : rows.slice(0, LINKS_PAGE_SIZE);
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      const view = {
        frame,
        links: shown,
        search: q.search,
        showArchived,
        newer: (q.before ? more : !!q.after) ? shown[0]?.id : undefined,
        older: (q.before ? true : more) ? shown.at(-1)?.id : undefined,
      };
      return sendPage(reply, <LinksPage {...view} />);
    });

    app.post<{ Params: { slug: string; id: string }; Body: Record<string, string | undefined> }>('/dashboard/w/:slug/links/:id/archive', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      await links.update(callerOf(page), request.params.id, { archived: request.body?.archived !== 'false' });
      return redirect(reply, workspacePath(page.workspace.slug, '/links'));
    });
  };
}

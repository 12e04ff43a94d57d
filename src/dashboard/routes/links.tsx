/**
 * Links: the list (`GET /dashboard/w/:slug/links`: search, domain/tag/folder/archived filters,
 * sort), archive/unarchive of one link, and bulk actions on the selected ones
 * (`POST …/links/bulk`), all through the links service the API uses (same filters, same rules,
 * same workspace scoping). The builder (new/edit) is link-builder.tsx.
 *
 * Sorted by creation (the default), the list pages by cursor (`?after=<linkId>` further,
 * `?before=<linkId>` back), asking one row more than it shows to know whether another page
 * follows. No total is counted: at 100,000 links a count costs more than the page itself
 * (bench/dashboard-links.ts), and a cursor page costs the same wherever it is. Other sorts
 * (clicks, last click, sales) page by number (`?page=`), as the API's cursors work on creation
 * order only; their index (migration 0006) still serves each page, at a cost growing with depth.
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { LinksPage, type BulkNotice, type GettingStarted, type ListState } from '../pages/links.js';
import { LinkDetailsPage } from '../pages/link-details.js';
import { workspacePath } from '../layout.js';
import type { LinkService } from '../../links/service.js';
import { SORT_FIELDS } from '../../links/schema.js';
import { parseInput } from '../../users/schema.js';
import { callerOf, type LinkChoices } from './link-choices.js';
import { linkView } from '../folder-view.js';
import { BULK_OPS, runBulk, selectedIds } from './links-bulk.js';

export const LINKS_PAGE_SIZE = 50;

const LinkId = z.string().regex(/^link_\w{1,60}$/, 'must be a link id');
const Id = z.string().max(100);
export const ListQuery = z.object({
  search: z.string().max(200).optional().default(''),
  domain: z.string().max(190).optional().default(''),
  tagId: Id.optional().default(''),
  folderId: Id.optional().default(''),
  showArchived: z.enum(['true', 'false']).optional(),
  sortBy: z.enum(SORT_FIELDS).optional().default('createdAt'),
  sortOrder: z.enum(['asc', 'desc']).optional().default('desc'),
  after: LinkId.optional(),
  before: LinkId.optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
  // What the last bulk action did (set by its redirect).
  done: z.enum(BULK_OPS).optional(),
  n: z.coerce.number().int().min(0).max(100).optional(),
  failed: z.coerce.number().int().min(0).max(100).optional(),
  // A bulk action pressed with nothing ticked (set by its redirect).
  empty: z.enum(['1']).optional(),
  // "Add tag" pressed with no tag chosen (set by its redirect): a sentence at the tag's list.
  missing: z.enum(['tag']).optional(),
});

/**
 * `keyCount`: the workspace's API keys (revoked ones included), for the getting-started steps a
 * workspace without links shows.
 */
export function linkRoutes(kit: Kit, links: LinkService, choices: LinkChoices, keyCount: (workspaceId: string) => Promise<number> = async () => 0): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/links', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(ListQuery, request.query);
      const state: ListState = {
        search: q.search,
        domain: q.domain,
        tagId: q.tagId,
        folderId: q.folderId,
        showArchived: q.showArchived === 'true',
        sortBy: q.sortBy,
        sortOrder: q.sortOrder,
      };
      const byCursor = q.sortBy === 'createdAt';
      const pageNumber = byCursor ? 1 : (q.page ?? 1);
      const filters = {
        search: q.search || undefined,
        domain: q.domain || undefined,
        tagIds: q.tagId ? [q.tagId] : undefined,
        folderId: q.folderId || undefined,
        showArchived: state.showArchived,
        sortBy: q.sortBy,
        sortOrder: q.sortOrder,
      };
      const caller = callerOf(page);
      const view = linkView(q.folderId);
      // By cursor, one extra row says whether another page follows (reading backwards it is the
      // first row). By number, the row after the page is asked for on its own (a one-row page).
      const [rows, after, c] = await Promise.all([
        byCursor
          ? links.list(caller, { ...filters, pageSize: LINKS_PAGE_SIZE + 1, ...(q.before ? { endingBefore: q.before } : q.after ? { startingAfter: q.after } : {}) }, view)
          : links.list(caller, { ...filters, pageSize: LINKS_PAGE_SIZE, page: pageNumber }, view),
        byCursor ? [] : links.list(caller, { ...filters, pageSize: 1, page: pageNumber * LINKS_PAGE_SIZE + 1 }, view),
        choices.load(page.workspace.id),
      ]);
      const more = byCursor ? rows.length > LINKS_PAGE_SIZE : after.length > 0;
      const backwards = byCursor && !!q.before;
      const shown = backwards ? rows.slice(more ? 1 : 0) : rows.slice(0, LINKS_PAGE_SIZE);
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      const notice: BulkNotice | undefined = q.done ? { op: q.done, count: q.n ?? 0, failed: q.failed ?? 0 } : q.empty ? 'empty' : q.missing ? 'missing-tag' : undefined;
      const paging = byCursor
        ? { newer: (backwards ? more : !!q.after) ? { before: shown[0]?.id } : undefined, older: (backwards || more) && shown.length ? { after: shown.at(-1)!.id } : undefined }
        : { newer: pageNumber > 1 ? { page: pageNumber - 1 } : undefined, older: more ? { page: pageNumber + 1 } : undefined };
      // A workspace without any link (not a filter that matches none): the getting-started steps.
      const empty = shown.length === 0 && !q.after && !q.before && pageNumber === 1 && !q.search && !q.domain && !q.tagId && !q.folderId && !state.showArchived;
      const none = empty && (await links.list(caller, { showArchived: true, pageSize: 1 }, view)).length === 0;
      const start: GettingStarted | undefined = none ? { domains: c.domains.length - 1, keys: await keyCount(page.workspace.id) } : undefined;
      return sendPage(reply, <LinksPage frame={frame} links={shown} state={state} choices={c} notice={notice} start={start} {...paging} />);
    });

    // One link, read only: every role (viewers' way to a link's details; the list links here for them).
    app.get<{ Params: { slug: string; id: string } }>('/dashboard/w/:slug/links/:id', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const [link, c] = await Promise.all([links.get(callerOf(page), request.params.id), choices.load(page.workspace.id)]);
      const folderName = link.folderId ? (c.folders.find((f) => f.id === link.folderId)?.name ?? null) : null;
      return sendPage(reply, <LinkDetailsPage frame={{ ...page.frame, workspace: page.frame.workspace! }} link={link} folderName={folderName} />);
    });

    app.post<{ Params: { slug: string; id: string }; Body: Record<string, string | undefined> }>('/dashboard/w/:slug/links/:id/archive', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      await links.update(callerOf(page), request.params.id, { archived: request.body?.archived !== 'false' });
      return redirect(reply, workspacePath(page.workspace.slug, '/links'));
    });

    // One link (the edit page's *Delete link*, confirmed in a dialog): back to the list with a notice.
    app.post<{ Params: { slug: string; id: string } }>('/dashboard/w/:slug/links/:id/delete', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      await links.delete(callerOf(page), request.params.id);
      return redirect(reply, workspacePath(page.workspace.slug, '/links?done=delete&n=1'));
    });

    app.post<{ Params: { slug: string }; Body: Record<string, string | undefined> }>('/dashboard/w/:slug/links/bulk', { schema: HIDDEN }, async (request, reply) => {
      const page: WorkspacePage = await kit.workspacePage(request, request.params.slug, 'links.write');
      const body = request.body ?? {};
      // Back to the list as it was filtered (the form carries its query), with what happened.
      const back = new URLSearchParams(typeof body.back === 'string' && body.back.length < 2000 ? body.back : '');
      for (const k of ['done', 'n', 'failed', 'after', 'before', 'empty', 'missing']) back.delete(k);
      // Nothing ticked (links.js disables the buttons until something is; without it, this): a notice, not an error page.
      if (selectedIds(body).length === 0 && typeof body.op === 'string' && (BULK_OPS as readonly string[]).includes(body.op)) {
        back.set('empty', '1');
        return redirect(reply, workspacePath(page.workspace.slug, `/links?${back}`));
      }
      if (body.op === 'tag' && !body.tagId) {
        back.set('missing', 'tag');
        return redirect(reply, workspacePath(page.workspace.slug, `/links?${back}`));
      }
      const result = await runBulk(links, callerOf(page), body.op, selectedIds(body), { tagId: body.tagId, folderId: body.folderId });
      back.set('done', result.op);
      back.set('n', String(result.count));
      if (result.failed) back.set('failed', String(result.failed));
      return redirect(reply, workspacePath(page.workspace.slug, `/links?${back}`));
    });
  };
}

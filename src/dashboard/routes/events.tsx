/**
 * The events page, a working log: `GET /dashboard/w/:slug/events?event=clicks|leads|sales&linkId=&folderId=&older=|newer=`.
 * The rows are `GET /events`'s records (the same plan rule: Business or higher), every folder's
 * links unless a folder or "Outside folders" is chosen (folder-view.ts), 50 a page, walked by
 * keyset: `older=<ms>.<id>` (the last event shown) and `newer=<ms>.<id>` (the first), so a page
 * deep in a million events reads as few rows as the first.
 *
 * @example
 * GET /dashboard/w/acme/events?event=sales&linkId=link_1&older=1717171717171.evt_9
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Kit } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import { assertPlan } from '../../access/auth.js';
import { EventsQuery } from '../../analytics/schema.js';
import type { EventCursor } from '../../analytics/service.js';
import type { LinkService } from '../../links/service.js';
import { ListFoldersQuery } from '../../folders/schema.js';
import { folderView } from '../folder-view.js';
import { parseInput } from '../../users/schema.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { EventsPage } from '../pages/events.js';
import { linkChoices } from './analytics.js';

export const EVENTS_PAGE_SIZE = 50;

/** `<ms>.<id>`: an event's place in the list (ids are the service's own: letters, digits, `_`, `-`). */
const Cursor = z
  .string()
  .regex(/^\d{1,15}\.[\w-]{1,100}$/, { message: 'This page address is not one the events page made; open the events page again.' })
  .transform((s): EventCursor => ({ timestamp: Number(s.slice(0, s.indexOf('.'))), id: s.slice(s.indexOf('.') + 1) }));

const EventsPageQuery = z.object({
  event: z.enum(['clicks', 'leads', 'sales']).default('clicks'),
  folderId: z.string().max(100).default(''),
  linkId: z.string().max(100).default(''),
  linkSearch: z.string().max(200).default(''),
  older: Cursor.optional(),
  newer: Cursor.optional(),
});

export function cursorParam(c: EventCursor): string {
  return `${c.timestamp}.${c.id}`;
}

export function eventsRoutes(kit: Kit, services: PageServices, links: LinkService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/events', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(EventsPageQuery, request.query);
      const auth = apiCallerOf(page);
      assertPlan(auth, 'business', 'The events list');
      const { query, view } = folderView({ event: q.event, limit: EVENTS_PAGE_SIZE, interval: 'all', folderId: q.folderId || undefined, linkId: q.linkId || undefined });
      const { page: _page, ...listQuery } = EventsQuery.parse(query);
      const [found, folders, linkRows] = await Promise.all([
        services.analytics.eventCursorPage(auth, listQuery, { older: q.older, newer: q.newer }, view),
        services.folders.list(page.workspace.id, ListFoldersQuery.parse({})),
        linkChoices(links, page, q.linkSearch, q.linkId),
      ]);
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(
        reply,
        <EventsPage
          frame={frame}
          tab={q.event}
          events={found.records}
          newer={found.newer && cursorParam(found.newer)}
          older={found.older && cursorParam(found.older)}
          paged={!!(q.older || q.newer)}
          folderId={q.folderId}
          folders={folders.map((f) => ({ id: f.id, name: f.name }))}
          linkId={q.linkId}
          linkSearch={q.linkSearch}
          links={linkRows}
        />,
      );
    });
  };
}

/**
 * Events and customers, read through the API's services:
 *
 * - `GET /dashboard/w/:slug/events?event=clicks|leads|sales&folderId=&page=N`: `analytics.listEvents`, as
 *   `GET /events?event=…&page=N&limit=50` (the same plan rule: Business or higher), every
 *   folder's links unless a folder or "Outside folders" is chosen (folder-view.ts);
 * - `GET /dashboard/w/:slug/customers?search=…&page=N`: `customers.list`, as `GET /customers`;
 * - `GET /dashboard/w/:slug/customers/:id`: `customers.get` with the link expanded, and the
 *   customer's leads and sales (`listEvents` with `customerId`, all time).
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Kit } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import { assertPlan } from '../../access/auth.js';
import { EventsQuery, type EventRecord } from '../../analytics/schema.js';
import { CUSTOMER_SORT_FIELDS, ListCustomersQuery } from '../../customers/schema.js';
import { ListFoldersQuery } from '../../folders/schema.js';
import { folderView } from '../folder-view.js';
import { parseInput } from '../../users/schema.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { EventsPage } from '../pages/events.js';
import { CustomerPage, CustomersPage } from '../pages/customers.js';

export const EVENTS_PAGE_SIZE = 50;
export const CUSTOMERS_PAGE_SIZE = 50;
/** A customer's page lists at most this many of their leads and of their sales. */
const CUSTOMER_EVENTS = 100;

const PageNumber = z.coerce.number().int().min(1).max(100_000).default(1);
const EventsPageQuery = z.object({ event: z.enum(['clicks', 'leads', 'sales']).default('clicks'), page: PageNumber, folderId: z.string().max(100).default('') });
const CustomersPageQuery = z.object({
  search: z.string().max(190).default(''),
  page: PageNumber,
  sortBy: z.enum(CUSTOMER_SORT_FIELDS).catch('createdAt'),
  sortOrder: z.enum(['asc', 'desc']).catch('desc'),
});

export function activityRoutes(kit: Kit, services: PageServices): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/events', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(EventsPageQuery, request.query);
      const auth = apiCallerOf(page);
      assertPlan(auth, 'business', 'The events list');
      const { query, view } = folderView({ event: q.event, page: q.page, limit: EVENTS_PAGE_SIZE, interval: 'all', folderId: q.folderId || undefined });
      const [events, folders] = await Promise.all([
        services.analytics.listEvents(auth, EventsQuery.parse(query), view),
        services.folders.list(page.workspace.id, ListFoldersQuery.parse({})),
      ]);
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(
        reply,
        <EventsPage frame={frame} tab={q.event} page={q.page} events={events} hasNext={events.length === EVENTS_PAGE_SIZE} folderId={q.folderId} folders={folders.map((f) => ({ id: f.id, name: f.name }))} />,
      );
    });

    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/customers', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(CustomersPageQuery, request.query);
      const customers = await services.customers.list(
        page.workspace.id,
        ListCustomersQuery.parse({ search: q.search || undefined, page: q.page, pageSize: CUSTOMERS_PAGE_SIZE, sortBy: q.sortBy, sortOrder: q.sortOrder }),
      );
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(
        reply,
        <CustomersPage frame={frame} customers={customers} search={q.search} page={q.page} sort={{ by: q.sortBy, order: q.sortOrder }} hasNext={customers.length === CUSTOMERS_PAGE_SIZE} />,
      );
    });

    app.get<{ Params: { slug: string; id: string } }>('/dashboard/w/:slug/customers/:id', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      // Another workspace's customer answers 404, as the API does.
      const customer = await services.customers.get(page.workspace.id, request.params.id, true);
      const auth = apiCallerOf(page);
      const of = (event: 'leads' | 'sales') =>
        services.analytics.listEvents(auth, EventsQuery.parse({ event, customerId: customer.id, interval: 'all', limit: CUSTOMER_EVENTS }));
      const [leads, sales] = await Promise.all([of('leads'), of('sales')]);
      const events: EventRecord[] = [...leads, ...sales].sort((a, b) => b.timestamp.localeCompare(a.timestamp));
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      return sendPage(reply, <CustomerPage frame={frame} customer={customer} events={events} />);
    });
  };
}

/**
 * Customers, read through the API's services (the events page is routes/events.tsx):
 *
 * - `GET /dashboard/w/:slug/customers?search=…&page=N`: `customers.list`, as `GET /customers`;
 * - `GET /dashboard/w/:slug/customers/:id`: `customers.get` with the link expanded, and the
 *   customer's leads and sales (`listEvents` with `customerId`, all time).
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Kit } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import { EventsQuery, type EventRecord } from '../../analytics/schema.js';
import { CUSTOMER_SORT_FIELDS, ListCustomersQuery } from '../../customers/schema.js';
import { parseInput } from '../../users/schema.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { CustomerPage, CustomersPage } from '../pages/customers.js';

export const CUSTOMERS_PAGE_SIZE = 50;
/** A customer's page lists at most this many of their leads and of their sales. */
const CUSTOMER_EVENTS = 100;

const PageNumber = z.coerce.number().int().min(1).max(100_000).default(1);
const CustomersPageQuery = z.object({
  search: z.string().max(190).default(''),
  page: PageNumber,
  sortBy: z.enum(CUSTOMER_SORT_FIELDS).catch('createdAt'),
  sortOrder: z.enum(['asc', 'desc']).catch('desc'),
});

export function activityRoutes(kit: Kit, services: PageServices): FastifyPluginAsync {
  return async (app) => {
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

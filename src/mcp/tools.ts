/**
 * The MCP tools and resources: each one the API's request schema, the permission and plan its
 * route declares, and a call of the service that route calls. Nothing here decides anything the
 * API does not: answers are the services' own, written as compact tables where a list is long.
 *
 * @example
 * const { tools, resources } = createTools({ links, domains, tags, customers, analytics, qr });
 * const created = await tools.find((t) => t.name === 'create_link')!.run(call, CreateLinkBody.parse({ url: 'https://example.com' }));
 */
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Permission } from '../workspaces/api-keys.js';
import type { Plan } from '../workspaces/plans.js';
import type { AuthContext } from '../workspaces/service.js';
import type { Caller, LinkService } from '../links/service.js';
import type { LinkResponse } from '../links/response.js';
import { CreateLinkBody, LinkIdParams, LinkInfoQuery, ListLinksQuery, UpdateLinkBody } from '../links/schema.js';
import type { DomainService } from '../domains/service.js';
import { ListDomainsQuery } from '../domains/schema.js';
import type { TagService } from '../tags/service.js';
import { ListTagsQuery } from '../tags/schema.js';
import type { CustomerService } from '../customers/service.js';
import { ListCustomersQuery } from '../customers/schema.js';
import type { AnalyticsService } from '../analytics/service.js';
import { AnalyticsQuery, EventsQuery, type EventRecord } from '../analytics/schema.js';
import type { QrRenderer } from '../qr/render.js';
import { QrQuery } from '../qr/schema.js';
import { renderQrCode } from '../qr/routes.js';
import { table, type Row } from './tables.js';

/** The request a tool runs for: its key's workspace and who acts, for the audit log. */
export interface ToolCall {
  request: FastifyRequest;
  auth: AuthContext;
  caller: Caller;
}

export interface McpTool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  /** The API's request schema: the tool's input is validated by it, and listed as its JSON Schema. */
  input: S;
  /** The route's permission (none: any valid key, as for customers). */
  permission?: Permission;
  minPlan?: Plan;
  /** Counted against the key's analytics limit, as `GET /analytics` and `GET /events` are. */
  analytics?: boolean;
  readOnly: boolean;
  run(call: ToolCall, input: z.output<S>): Promise<CallToolResult>;
}

export interface McpResource {
  uri: string;
  name: string;
  description: string;
  permission: Permission;
  analytics?: boolean;
  read(call: ToolCall): Promise<unknown>;
}

export interface ToolServices {
  links: LinkService;
  domains: DomainService;
  tags: TagService;
  customers: CustomerService;
  analytics: AnalyticsService;
  qr: QrRenderer;
}

/** Keeps each tool's input type tied to its schema. */
const tool = <S extends z.ZodType>(t: McpTool<S>): McpTool => t as unknown as McpTool;

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });
const json = (value: unknown): CallToolResult => text(JSON.stringify(value));

const LINK_COLUMNS = ['id', 'shortLink', 'url', 'tags', 'clicks', 'leads', 'sales', 'saleAmount', 'archived', 'expiresAt', 'createdAt'];
const linkRow = (l: LinkResponse): Row => ({ ...l, tags: l.tags?.map((t) => t.name).join(', ') ?? '' });

const EVENT_COLUMNS = ['timestamp', 'event', 'eventName', 'link', 'url', 'country', 'city', 'device', 'browser', 'os', 'referer', 'trigger', 'customer', 'saleAmount', 'currency'];
function eventRow(e: EventRecord): Row {
  const customer = 'customer' in e ? (e.customer.email ?? e.customer.name ?? e.customer.externalId) : null;
  return {
    timestamp: e.timestamp,
    event: e.event,
    eventName: 'eventName' in e ? e.eventName : null,
    link: e.link.shortLink,
    url: e.url,
    country: e.country,
    city: e.city,
    device: e.device,
    browser: e.browser,
    os: e.os,
    referer: e.click.referer,
    trigger: e.click.trigger,
    customer,
    saleAmount: 'sale' in e ? e.sale.amount : null,
    currency: 'sale' in e ? e.sale.currency : null,
  };
}

/** The grouping's rows (or the one `count` row) as a table; metrics come last as the API orders them. */
const analyticsTable = (answer: unknown): string => table(Array.isArray(answer) ? (answer as Row[]) : [answer as Row]);

const LinkQrInput = LinkIdParams.extend(QrQuery.pick({ size: true, level: true, fgColor: true, bgColor: true, margin: true, format: true }).shape);

export function createTools(s: ToolServices): { tools: McpTool[]; resources: McpResource[]; linkOf(call: ToolCall, linkId: string): Promise<unknown> } {
  const tools: McpTool[] = [
    tool({
      name: 'create_link',
      title: 'Create a short link',
      description:
        'Creates a short link to `url` (POST /links). Optional: domain and key (random when left out), tagNames or tagIds, utm_source/utm_medium/utm_campaign/utm_term/utm_content, expiresAt (ISO-8601) and expiredUrl, password, testVariants (A/B test: 2 to 4 {url, percentage} adding up to 100) with testCompletedAt, title, description, image, externalId, comments. Answers the link as JSON.',
      input: CreateLinkBody,
      permission: 'links.write',
      readOnly: false,
      run: async ({ caller }, body) => json(await s.links.create(caller, body)),
    }),
    tool({
      name: 'update_link',
      title: 'Update a link',
      description: 'Changes the given fields of the link `linkId` (a link id, or `ext_` and its external id), as PATCH /links/{linkId} does; the fields are those of create_link. Answers the link as JSON.',
      input: LinkIdParams.extend(UpdateLinkBody.shape),
      permission: 'links.write',
      readOnly: false,
      run: async ({ caller }, { linkId, ...changes }) => json(await s.links.update(caller, linkId, changes)),
    }),
    tool({
      name: 'archive_link',
      title: 'Archive a link',
      description: 'Archives the link `linkId` (or restores it with archived: false). An archived link still redirects; it is left out of lists unless asked for. Answers the link as JSON.',
      input: LinkIdParams.extend({ archived: UpdateLinkBody.shape.archived.default(true) }),
      permission: 'links.write',
      readOnly: false,
      run: async ({ caller }, { linkId, archived }) => json(await s.links.update(caller, linkId, { archived })),
    }),
    tool({
      name: 'get_link',
      title: 'Get a link',
      description: 'One link by linkId, by externalId, or by domain and key (GET /links/info), as JSON with every field.',
      input: LinkInfoQuery,
      permission: 'links.read',
      readOnly: true,
      run: async ({ caller }, q) => json(await s.links.info(caller, q)),
    }),
    tool({
      name: 'find_links',
      title: 'Find links',
      description:
        'Lists links as a table (GET /links): search matches the short link and the destination; filter by domain, tagNames or tagIds, folderId, tenantId; showArchived "true" includes archived ones; sortBy createdAt, clicks, saleAmount or lastClicked; page and pageSize (at most 100).',
      input: ListLinksQuery,
      permission: 'links.read',
      readOnly: true,
      run: async ({ caller }, q) => text(table((await s.links.list(caller, q)).map(linkRow), LINK_COLUMNS)),
    }),
    tool({
      name: 'list_domains',
      title: 'List domains',
      description: "The workspace's short-link domains as a table (GET /domains); archived \"true\" lists the archived ones instead.",
      input: ListDomainsQuery,
      permission: 'domains.read',
      readOnly: true,
      run: async ({ auth }, q) => text(table(await s.domains.list(auth.workspaceId, q), ['slug', 'primary', 'verified', 'archived', 'placeholder', 'id'])),
    }),
    tool({
      name: 'list_tags',
      title: 'List tags',
      description: "The workspace's tags as a table (GET /tags), optionally filtered by search.",
      input: ListTagsQuery,
      permission: 'tags.read',
      readOnly: true,
      run: async ({ auth }, q) => text(table(await s.tags.list(auth.workspaceId, q), ['id', 'name', 'color'])),
    }),
    tool({
      name: 'analytics',
      title: 'Analytics',
      description:
        'Counts of clicks, leads and sales (GET /analytics) as a table. event: clicks (default), leads, sales or composite. groupBy: count (default), timeseries, countries, cities, regions, continents, devices, browsers, os, triggers, referers, referer_urls, top_links, top_urls, top_domains, top_link_tags, top_folders, utm_sources, utm_mediums, utm_campaigns, utm_terms, utm_contents, …. Range: interval (24h, 7d, 30d, 90d, 1y, mtd, qtd, ytd, all) or start and end, with timezone. Filters: linkId, domain and key, externalId, tagIds, folderId, country, city, region, continent, device, browser, os, trigger, referer, refererUrl, url, utm_*, customerId, qr, root.',
      input: AnalyticsQuery,
      permission: 'analytics.read',
      analytics: true,
      readOnly: true,
      run: async ({ auth }, q) => text(analyticsTable(await s.analytics.retrieve(auth, q))),
    }),
    tool({
      name: 'list_events',
      title: 'Recent events',
      description: 'The newest click, lead or sale events (GET /events; event: clicks by default), as a table, with the filters and range of the analytics tool; limit (at most 1000) and page. Business plan and up.',
      input: EventsQuery,
      permission: 'analytics.read',
      minPlan: 'business',
      analytics: true,
      readOnly: true,
      run: async ({ auth }, q) => text(table((await s.analytics.listEvents(auth, q)).map(eventRow), EVENT_COLUMNS)),
    }),
    tool({
      name: 'list_customers',
      title: 'List customers',
      description: 'Customers (GET /customers) as a table: by email, externalId or search (name, email, external id), country or linkId; sortBy and sortOrder; page and pageSize. Business plan and up.',
      input: ListCustomersQuery,
      minPlan: 'business',
      readOnly: true,
      run: async ({ auth }, q) => text(table(await s.customers.list(auth.workspaceId, q), ['id', 'name', 'email', 'externalId', 'country', 'sales', 'saleAmount', 'createdAt'])),
    }),
    tool({
      name: 'link_qr_code',
      title: "A link's QR code",
      description: "The QR code of the link `linkId` as an image (PNG unless format is svg); scans of it count as QR clicks. size in pixels (default 600), level L/M/Q/H, fgColor and bgColor as hex, margin in modules.",
      input: LinkQrInput,
      permission: 'links.read',
      readOnly: true,
      run: async ({ caller }, { linkId, format, ...options }) => {
        const link = await s.links.get(caller, linkId);
        const image = await renderQrCode(s.qr, { ...options, url: `${link.shortLink}?qr=1` }, format ?? 'png');
        const data = typeof image.body === 'string' ? Buffer.from(image.body).toString('base64') : image.body.toString('base64');
        return { content: [{ type: 'image', data, mimeType: image.contentType }, { type: 'text', text: `QR code of ${link.shortLink}; also served at ${link.qrCode}` }] };
      },
    }),
  ];

  const resources: McpResource[] = [
    {
      uri: 'waymark://links',
      name: 'links',
      description: "The workspace's newest links (up to 100), as GET /links answers them (JSON).",
      permission: 'links.read',
      read: ({ caller }) => s.links.list(caller, ListLinksQuery.parse({ pageSize: '100' })),
    },
    {
      uri: 'waymark://links/top',
      name: 'top-links',
      description: "The workspace's most clicked links of the last 30 days, with their clicks, leads and sales (GET /analytics groupBy=top_links; JSON).",
      permission: 'analytics.read',
      analytics: true,
      read: ({ auth }) => s.analytics.retrieve(auth, AnalyticsQuery.parse({ groupBy: 'top_links', interval: '30d' })),
    },
  ];
  return { tools, resources, linkOf: ({ caller }, linkId) => s.links.get(caller, linkId) };
}

/**
 * Request schemas of `GET /analytics` and `GET /events` (the spec's parameter tables with their
 * limits) and the response row schemas, which document the API in OpenAPI.
 */
import { z } from 'zod';
import { ATTRIBUTION_MODELS } from '../attribution/models.js';
import { MAX_LIST_ITEMS, commaSeparatedMax } from '../http/lists.js';
import { INTERVALS } from './range.js';
import { LinkResponse } from '../links/response.js';

/** Every grouping: the spec's `type` values plus the published extras (`top_partner_tags`). */
export const GROUP_BYS = [
  'count',
  'timeseries',
  'continents',
  'regions',
  'countries',
  'cities',
  'devices',
  'browsers',
  'os',
  'trigger',
  'triggers',
  'referers',
  'referer_urls',
  'top_folders',
  'top_link_tags',
  'top_domains',
  'top_links',
  'top_urls',
  'top_base_urls',
  'top_partners',
  'top_groups',
  'top_partner_tags',
  'utm_sources',
  'utm_mediums',
  'utm_campaigns',
  'utm_terms',
  'utm_contents',
] as const;
export type GroupBy = (typeof GROUP_BYS)[number];

export const ANALYTICS_EVENTS = ['clicks', 'leads', 'sales', 'composite'] as const;
export type AnalyticsEvent = (typeof ANALYTICS_EVENTS)[number];
export const LIST_EVENTS = ['clicks', 'leads', 'sales'] as const;
export type ListEvent = (typeof LIST_EVENTS)[number];

/** Query-string booleans: `true`/`false` (also `1`/`0`). */
const queryBoolean = z.preprocess(
  (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v),
  z.boolean(),
);

/** A filter value: one string, or the same parameter repeated (joined with commas); at most 100 values. */
const filterValue = z.preprocess(
  (v) => (Array.isArray(v) ? v.join(',') : v),
  z.string().refine(commaSeparatedMax(MAX_LIST_ITEMS), { message: `At most ${MAX_LIST_ITEMS} comma-separated values are accepted.` }),
);
const utmValue = z.preprocess((v) => (Array.isArray(v) ? v.join(',') : v), z.string().max(190));

/** The filter parameters shared by both endpoints (spec: GET /events, GET /analytics). */
export const FilterQuery = z.object({
  domain: filterValue.optional(),
  key: z.string().optional(),
  linkId: filterValue.optional(),
  externalId: z.string().optional(),
  tenantId: filterValue.optional(),
  programId: filterValue.optional(),
  partnerId: filterValue.optional(),
  customerId: z.string().optional(),
  interval: z.enum(INTERVALS).optional(),
  start: z.string().optional(),
  end: z.string().optional(),
  timezone: z.string().optional(),
  country: filterValue.optional(),
  city: filterValue.optional(),
  region: filterValue.optional(),
  continent: filterValue.optional(),
  device: filterValue.optional(),
  browser: filterValue.optional(),
  os: filterValue.optional(),
  trigger: filterValue.optional(),
  referer: filterValue.optional(),
  refererUrl: filterValue.optional(),
  url: filterValue.optional(),
  tagIds: filterValue.optional(),
  tagId: filterValue.optional(),
  folderId: filterValue.optional(),
  groupId: filterValue.optional(),
  partnerTagId: filterValue.optional(),
  root: queryBoolean.optional(),
  saleType: z.enum(['new', 'recurring']).optional(),
  query: z.string().max(10000).optional(),
  qr: queryBoolean.optional(),
  utm_source: utmValue.optional(),
  utm_medium: utmValue.optional(),
  utm_campaign: utmValue.optional(),
  utm_term: utmValue.optional(),
  utm_content: utmValue.optional(),
  ref: utmValue.optional(),
});
export type FilterQuery = z.infer<typeof FilterQuery>;

export const AnalyticsQuery = FilterQuery.extend({
  event: z
    .enum(ANALYTICS_EVENTS, { error: 'Invalid event type. Valid event types are: clicks, leads, sales, composite' })
    .default('clicks'),
  /** The spec's name for the grouping. */
  type: z.enum(GROUP_BYS, { error: `Invalid type value. Valid values are: ${GROUP_BYS.join(', ')}` }).optional(),
  /** The published API's and SDK's name for the same parameter. */
  groupBy: z.enum(GROUP_BYS, { error: `Invalid type value. Valid values are: ${GROUP_BYS.join(', ')}` }).optional(),
  /** Waymark's: how sales are credited to the clicks before them (absent: the click each sale was tracked on). */
  attribution: z
    .enum(ATTRIBUTION_MODELS, { error: `Invalid attribution model. Valid models are: ${ATTRIBUTION_MODELS.join(', ')}` })
    .optional()
    .describe(
      "Waymark's addition: credit each sale to the customer's clicks before it: `last_click` (absent: the click it was tracked on), `first_click`, `linear`, `time_decay` (7-day half-life), `position_based` (40/20/40). Moves `sales` and `saleAmount` between groups; totals are unchanged.",
    ),
  lookbackDays: z.coerce
    .number({ error: 'lookbackDays must be a whole number of days from 1 to 365.' })
    .int('lookbackDays must be a whole number of days from 1 to 365.')
    .min(1, 'lookbackDays must be a whole number of days from 1 to 365.')
    .max(365, 'lookbackDays must be a whole number of days from 1 to 365.')
    .optional()
    .describe('With `attribution`: clicks older than this before a sale get no credit (default 90).'),
});
export type AnalyticsQuery = z.infer<typeof AnalyticsQuery>;

export const EventsQuery = FilterQuery.extend({
  event: z.enum(LIST_EVENTS, { error: 'Invalid event type. Valid event types are: clicks, leads, sales' }).default('clicks'),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  sortOrder: z.enum(['asc', 'desc']).optional(),
  sortBy: z.enum(['timestamp']).default('timestamp'),
  /** @deprecated use sortOrder */
  order: z.enum(['asc', 'desc']).optional(),
});
export type EventsQuery = z.infer<typeof EventsQuery>;

const metrics = {
  clicks: z.number(),
  leads: z.number(),
  sales: z.number(),
  saleAmount: z.number(),
};

/** The `count` response: always the four metrics, zero for the events not asked for. */
export const AnalyticsCount = z.object(metrics).meta({ id: 'AnalyticsCount' });

/** One grouped row: the group key(s) and the four metrics. */
const GroupRow = z.object({ ...metrics }).catchall(z.unknown());

export const AnalyticsResponse = z
  .union([AnalyticsCount, z.array(GroupRow)])
  .describe('`count`: an object; every other grouping: an array of rows with the group key and clicks, leads, sales, saleAmount.');

const EventClick = z.object({
  id: z.string(),
  timestamp: z.string(),
  url: z.string(),
  country: z.string(),
  city: z.string(),
  region: z.string(),
  continent: z.string(),
  device: z.string(),
  browser: z.string(),
  os: z.string(),
  trigger: z.string().nullable(),
  referer: z.string(),
  refererUrl: z.string(),
  qr: z.boolean(),
  ip: z.string(),
});

const flat = {
  click_id: z.string(),
  link_id: z.string(),
  domain: z.string(),
  key: z.string(),
  url: z.string(),
  continent: z.string(),
  country: z.string(),
  city: z.string(),
  device: z.string(),
  browser: z.string(),
  os: z.string(),
  qr: z.number(),
  ip: z.string(),
};

const EventCustomer = z.object({
  id: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  avatar: z.string().nullable(),
  externalId: z.string(),
  country: z.string().nullable(),
  createdAt: z.string(),
});

export const ClickEventResponse = z
  .object({ event: z.literal('click'), timestamp: z.string(), click: EventClick, link: LinkResponse, ...flat })
  .meta({ id: 'ClickEvent' });

/** What lead and sale records both carry. */
const conversion = {
  timestamp: z.string(),
  eventId: z.string(),
  eventName: z.string(),
  metadata: z.unknown().nullable(),
  click: EventClick,
  link: LinkResponse,
  customer: EventCustomer,
};

export const LeadEventResponse = z
  .object({ event: z.literal('lead'), ...conversion, ...flat })
  .meta({ id: 'LeadEvent' });

export const SaleEventResponse = z
  .object({
    event: z.literal('sale'),
    ...conversion,
    sale: z.object({ amount: z.number(), invoiceId: z.string().nullable(), paymentProcessor: z.string(), currency: z.string().nullable() }),
    saleAmount: z.number(),
    invoice_id: z.string(),
    payment_processor: z.string(),
    ...flat,
  })
  .meta({ id: 'SaleEvent' });

export const EventsResponse = z.array(z.union([ClickEventResponse, LeadEventResponse, SaleEventResponse]));
export type ClickEventResponse = z.infer<typeof ClickEventResponse>;
export type LeadEventResponse = z.infer<typeof LeadEventResponse>;
export type SaleEventResponse = z.infer<typeof SaleEventResponse>;
export type EventRecord = ClickEventResponse | LeadEventResponse | SaleEventResponse;

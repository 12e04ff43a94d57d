/**
 * Request schemas of the links API. Each field is validated and normalised here (URL completion
 * and scheme check, ISO dates, truncation, csv lists), so a failure is a 422 naming the field and
 * the service receives clean values. Response shapes live in `response.ts`.
 */
import { z } from 'zod';
import { MAX_LIST_ITEMS, idList } from '../http/lists.js';
import { pageQuery } from '../http/pagination.js';
import { IMAGE_DATA_URL, isImageDataUrl, optionalWebUrlField, storedUrlOrIssue, webUrlField } from '../web-url.js';

export { LinkResponse } from './response.js';

/** Country codes a link's `geo` may target: every ISO 3166-1 country, with room to spare. */
const MAX_GEO_TARGETS = 250;

/** Limits from the spec's Limits table. */
export const LIMITS = { url: 32_000, key: 190, domain: 190, externalId: 255, tenantId: 255, utm: 190, bulk: 100, pageSize: 100 } as const;

/** A destination URL; `""` is passed through (the service answers "Missing destination URL"). */
const destinationUrl = z
  .string()
  .max(LIMITS.url)
  .transform((v, ctx) => (v === '' ? v : storedUrlOrIssue(v, ctx, 'Invalid destination URL')));

/** A secondary URL (geo values, test variants): http(s) only, required. */
const webUrl = webUrlField({ max: LIMITS.url });

/** Same rule, optional (expiredUrl, ios, android, video): `""` or `null` means "none". */
const optionalWebUrl = optionalWebUrlField({ max: LIMITS.url });

const ISO_DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Milliseconds from an ISO-8601 date or date-time; a date-time without an offset is UTC. Returns
 * NaN when the value is not ISO-8601 (free text such as "tomorrow" is refused).
 */
export function parseIsoDate(value: string): number {
  const m = ISO_DATE.exec(value.trim());
  if (!m) return NaN;
  const [, date, time, zone] = m;
  // Date.parse rolls 2030-02-30 over to March; a date that does not exist is refused.
  const [y, mo, d] = date!.split('-').map(Number) as [number, number, number];
  if (new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d || mo < 1 || mo > 12) return NaN;
  if (!time) return Date.parse(`${date}T00:00:00Z`);
  let offset = (zone ?? 'Z').toUpperCase();
  if (/^[+-]\d{2}$/.test(offset)) offset += ':00';
  else if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  return Date.parse(`${date}T${time}${offset}`);
}

const isoDate = (message: string) =>
  z
    .string()
    .transform((v, ctx) => {
      if (v === '') return null;
      const ms = parseIsoDate(v);
      if (!Number.isNaN(ms)) return ms;
      ctx.issues.push({ code: 'custom', message, input: v });
      return z.NEVER;
    })
    .nullish();

/** `a,b` or `["a","b"]` or a repeated query parameter → trimmed, non-empty items (at most 100). */
export const csvList = idList(MAX_LIST_ITEMS);

const truncate = (max: number) => (v: string | null | undefined) => (v && v.length > max ? `${v.slice(0, max - 3)}...` : v);

/** UTM values: trimmed, at most 190 characters; `""` and `null` remove the parameter. */
export const UtmValue = z
  .string()
  .max(LIMITS.utm)
  .nullish()
  .transform((v) => (v === undefined ? undefined : v === null ? null : v.trim() || null));
const utm = UtmValue;

/**
 * Preview image: an http(s) URL (the same rule as every URL field) or a base64 image data URL of
 * png, jpeg, jpg, gif or webp; `""` or `null` means none.
 */
const image = z
  .string()
  .nullish()
  .transform((v, ctx) => {
    if (!v) return v === undefined ? undefined : null;
    if (!v.startsWith('data:')) return storedUrlOrIssue(v, ctx, 'Invalid image URL');
    if (isImageDataUrl(v)) return v;
    const message = IMAGE_DATA_URL.test(v)
      ? 'Invalid image: the data of a base64 data URL must be base64 (A-Z, a-z, 0-9, +, /, =).'
      : 'Invalid image format, supports only png, jpeg, jpg, gif, webp.';
    ctx.issues.push({ code: 'custom', message, input: v });
    return z.NEVER;
  });

/** Fields shared by create and update bodies. */
const linkFields = {
  url: destinationUrl,
  domain: z.string().max(LIMITS.domain).optional(),
  key: z.string().max(LIMITS.key).optional(),
  externalId: z
    .string()
    .min(1)
    .max(LIMITS.externalId)
    .nullish()
    .transform((v, ctx) => {
      if (v === undefined || v === null) return v;
      // `ext_` addresses a link by its external id; the prefix is not part of the id (behaviour.md §1.1).
      const id = v.startsWith('ext_') ? v.slice(4) : v;
      if (id) return id;
      ctx.issues.push({ code: 'custom', message: 'externalId cannot be empty after its "ext_" prefix.', input: v });
      return z.NEVER;
    }),
  tenantId: z.string().max(LIMITS.tenantId).nullish(),
  programId: z.string().nullish(),
  partnerId: z.string().nullish(),
  trackConversion: z.boolean().optional(),
  archived: z.boolean().optional(),
  tagIds: csvList.optional(),
  tagNames: csvList.optional(),
  /** @deprecated use tagIds */
  tagId: z.string().nullish(),
  folderId: z
    .string()
    .nullish()
    .transform((v) => (v === '' ? null : v)),
  comments: z.string().nullish(),
  expiresAt: isoDate('Invalid expiration date: expected an ISO-8601 date-time.'),
  expiredUrl: optionalWebUrl,
  password: z.string().nullish(),
  proxy: z.boolean().optional(),
  title: z.string().nullish().transform(truncate(120)),
  description: z.string().nullish().transform(truncate(240)),
  image,
  video: optionalWebUrl,
  rewrite: z.boolean().optional(),
  ios: optionalWebUrl,
  android: optionalWebUrl,
  geo: z
    .record(z.string().max(16), webUrl)
    .refine((geo) => Object.keys(geo).length <= MAX_GEO_TARGETS, { message: `At most ${MAX_GEO_TARGETS} countries can be targeted.` })
    .nullish(),
  doIndex: z.boolean().optional(),
  utm_source: utm,
  utm_medium: utm,
  utm_campaign: utm,
  utm_term: utm,
  utm_content: utm,
  ref: utm,
  webhookIds: z.array(z.string()).max(MAX_LIST_ITEMS).nullish(),
  testVariants: z
    .array(z.object({ url: webUrl, percentage: z.number().min(10).max(90) }))
    .min(2)
    .max(4)
    .nullish(),
  testStartedAt: isoDate('Invalid test start date: expected an ISO-8601 date-time.'),
  testCompletedAt: isoDate('Invalid test completion date: expected an ISO-8601 date-time.'),
  publicStats: z.boolean().optional(),
};

/** POST /links, PUT /links/upsert and each element of POST /links/bulk. Unknown fields are ignored. */
export const CreateLinkBody = z.object({
  ...linkFields,
  keyLength: z.number().int().min(3).max(190).optional(),
  prefix: z.string().max(LIMITS.key).optional(),
});
export type CreateLinkInput = z.infer<typeof CreateLinkBody>;

/** PATCH /links/{linkId}: every create field optional, without `keyLength` and `prefix`. */
export const UpdateLinkBody = z.object(linkFields).partial();
export type UpdateLinkInput = z.infer<typeof UpdateLinkBody>;

/** `data` of PATCH /links/bulk: the update fields except what identifies a link. */
export const BulkUpdateData = UpdateLinkBody.omit({ domain: true, key: true, externalId: true });
export type BulkUpdateData = z.infer<typeof BulkUpdateData>;

export const BulkUpdateBody = z.object({
  linkIds: z.array(z.string()).max(LIMITS.bulk).optional(),
  externalIds: z.array(z.string()).max(LIMITS.bulk).optional(),
  data: BulkUpdateData,
});

/**
 * POST /links/bulk. Elements are validated one by one by the service, so a bad element becomes an
 * error entry of the response instead of failing the whole request (behaviour.md §2.1).
 */
export const BulkCreateBody = z.array(z.any()).describe('Up to 100 link bodies, each as in POST /links.');

export const LinkErrorResponse = z
  .object({ link: z.any(), error: z.string(), code: z.string() })
  .meta({ id: 'LinkError' });

export const LinkIdParams = z.object({ linkId: z.string().describe('A link id, or `ext_` followed by the external id.') });

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const SORT_FIELDS = ['createdAt', 'clicks', 'saleAmount', 'lastClicked'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

/** Filters shared by GET /links and GET /links/count. */
const filterFields = {
  domain: z.string().optional(),
  /** @deprecated use tagIds */
  tagId: z.string().optional(),
  tagIds: csvList.optional(),
  tagNames: csvList.optional(),
  folderId: z.string().optional(),
  search: z.string().optional(),
  userId: z.string().optional(),
  tenantId: z.string().optional(),
  showArchived: bool.optional(),
  /** @deprecated only links with at least one tag */
  withTags: bool.optional(),
};

export const ListLinksQuery = z.object({
  ...filterFields,
  sortBy: z.enum(SORT_FIELDS).optional(),
  /** @deprecated use sortBy */
  sort: z.enum(SORT_FIELDS).optional(),
  sortOrder: z.enum(['asc', 'desc']).optional(),
  ...pageQuery({ maxPageSize: LIMITS.pageSize, lowerBound: 'min1' }),
  startingAfter: z.string().optional(),
  endingBefore: z.string().optional(),
});
export type ListLinksQuery = z.infer<typeof ListLinksQuery>;

export const COUNT_GROUPS = ['domain', 'tagId', 'userId', 'folderId'] as const;
export type CountGroup = (typeof COUNT_GROUPS)[number];

export const CountLinksQuery = z.object({ ...filterFields, groupBy: z.enum(COUNT_GROUPS).optional() });
export type CountLinksQuery = z.infer<typeof CountLinksQuery>;

export const LinkInfoQuery = z.object({
  domain: z.string().min(1).optional(),
  key: z.string().min(1).optional(),
  linkId: z.string().optional(),
  externalId: z.string().optional(),
});

// More than 100 ids is the published 400 (links/service.ts), not the list cap's 422.
export const BulkDeleteQuery = z.object({ linkIds: idList(Number.POSITIVE_INFINITY).optional() });

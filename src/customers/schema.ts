/**
 * Customer request and response schemas, and the row → response mapper. Field presence follows
 * the SDK's customer validators (`getcustomer.ts`): `id`, `externalId` and `createdAt` are
 * required; the expanded fields appear only with `includeExpandedFields=true`.
 */
import { z } from 'zod';
import type { Selectable } from 'kysely';
import type { CustomersTable, LinksTable } from '../db/tables.js';
import { pageQuery } from '../http/pagination.js';

export type CustomerRow = Selectable<CustomersTable>;

/** `true` / `false` in a query string (any case), as the published API accepts. */
const queryBool = z
  .string()
  .regex(/^(true|false)$/i, 'Expected "true" or "false".')
  .transform((v) => v.toLowerCase() === 'true');

export const CUSTOMER_SORT_FIELDS = ['createdAt', 'saleAmount', 'firstSaleAt', 'subscriptionCanceledAt'] as const;

/** The spec's general page-size limit (Limits table). */
export const MAX_CUSTOMER_PAGE_SIZE = 100;

export const CustomerParams = z.object({
  id: z.string().min(1).meta({ description: 'Customer id (`cus_…`) or `ext_` + the external id.' }),
});

export const CustomerExpandQuery = z.object({
  includeExpandedFields: queryBool.optional().meta({ description: 'Adds `link`, `programId`, `partner` and `discount`.' }),
});

export const ListCustomersQuery = z.object({
  email: z.string().optional().meta({ description: 'Exact email; wins over `externalId` and `search`.' }),
  externalId: z.string().optional().meta({ description: 'Exact external id; wins over `search`.' }),
  search: z.string().max(190).optional().meta({ description: 'An email (contains `@`, exact match), or text matched against name, email and external id.' }),
  country: z.string().optional(),
  linkId: z.string().optional(),
  programId: z.string().optional(),
  partnerId: z.string().optional(),
  includeExpandedFields: queryBool.optional(),
  sortBy: z.enum(CUSTOMER_SORT_FIELDS).default('createdAt'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  startingAfter: z.string().optional().meta({ description: 'Cursor: the id of the last customer of the previous page.' }),
  endingBefore: z.string().optional().meta({ description: 'Cursor: the id of the first customer of the next page.' }),
  ...pageQuery({ maxPageSize: MAX_CUSTOMER_PAGE_SIZE, defaultPageSize: MAX_CUSTOMER_PAGE_SIZE, lowerBound: 'min1' }),
});
export type ListCustomersQuery = z.infer<typeof ListCustomersQuery>;

export const UpdateCustomerBody = z.object({
  email: z.email().max(100).nullish(),
  name: z.string().max(100).nullish().meta({ description: 'Empty or null: the email, else a random readable name.' }),
  avatar: z.url().max(2000).nullish(),
  externalId: z.string().trim().min(1).max(100).optional(),
  processorCustomerId: z.string().max(255).nullish().meta({ description: "The customer's id at the payment processor." }),
  /** The published name of `processorCustomerId`, accepted too. */
  stripeCustomerId: z.string().max(255).nullish().meta({ description: 'Alias of `processorCustomerId`.' }),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'Expected a 2-letter ISO 3166-1 country code.')
    .optional(),
});
export type UpdateCustomerBody = z.infer<typeof UpdateCustomerBody>;

const ExpandedLink = z.object({
  id: z.string(),
  domain: z.string(),
  key: z.string(),
  shortLink: z.string(),
  url: z.string(),
  programId: z.string().nullable(),
});

export const CustomerResponse = z
  .object({
    id: z.string(),
    externalId: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    avatar: z.string().nullable(),
    country: z.string().nullable(),
    processorCustomerId: z.string().nullable(),
    stripeCustomerId: z.string().nullable(),
    sales: z.number(),
    saleAmount: z.number(),
    createdAt: z.string(),
    firstSaleAt: z.string().nullable(),
    subscriptionCanceledAt: z.string().nullable(),
    link: ExpandedLink.nullable().optional(),
    programId: z.string().nullable().optional(),
    partner: z.object({ id: z.string(), name: z.string(), email: z.string().nullable(), image: z.string().nullable() }).nullable().optional(),
    discount: z
      .object({
        id: z.string(),
        amount: z.number(),
        type: z.enum(['percentage', 'flat']),
        maxDuration: z.number().nullable(),
        couponId: z.string().nullable(),
        couponTestId: z.string().nullable(),
      })
      .nullable()
      .optional(),
  })
  .meta({ id: 'Customer' });
export type CustomerResponse = z.infer<typeof CustomerResponse>;

export const DeleteCustomerResponse = z.object({ id: z.string() });

/** Waymark's own option (docs/privacy.md): erase the customer's leads and sales too. */
export const DeleteCustomerQuery = z.object({
  deleteEvents: queryBool.optional().meta({
    description:
      "Also delete the customer's lead and sale events, taking them out of analytics and of their links' lead and sale counters. Default false: the events stay, without the customer's name, email or avatar.",
  }),
});

const iso = (ms: number | null) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

/** The link columns the expanded customer shows. */
export type CustomerLinkRow = Pick<Selectable<LinksTable>, 'id' | 'domain' | 'key' | 'short_link' | 'url' | 'program_id'>;

/**
 * Row → response. With `expanded`, the link the customer was attributed to is added (or null);
 * partners and discounts are not modelled here, so those two are always null.
 */
export function toCustomerResponse(row: CustomerRow, expanded?: { link: CustomerLinkRow | undefined }): CustomerResponse {
  const out: CustomerResponse = {
    id: row.id,
    externalId: row.external_id,
    name: row.name,
    email: row.email,
    avatar: row.avatar,
    country: row.country,
    processorCustomerId: row.processor_customer_id,
    stripeCustomerId: row.processor_customer_id,
    sales: Number(row.sales),
    saleAmount: Number(row.sale_amount),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    firstSaleAt: iso(row.first_sale_at),
    subscriptionCanceledAt: null,
  };
  if (expanded) {
    const link = expanded.link;
    out.link = link
      ? { id: link.id, domain: link.domain, key: link.key, shortLink: link.short_link, url: link.url, programId: link.program_id }
      : null;
    out.programId = link?.program_id ?? null;
    out.partner = null;
    out.discount = null;
  }
  return out;
}

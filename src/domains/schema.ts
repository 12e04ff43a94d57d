/**
 * Domain request and response schemas, and the row → response mapper (behaviour.md §2.2).
 */
import { z } from 'zod';
import type { Selectable } from 'kysely';
import type { DomainsTable } from '../db/tables.js';
import { DOMAIN_SLUG_MAX, domainSlugProblem, normalizeDeepLinkFile, normalizeDomainSlug } from './validation.js';
import { optionalWebUrlField, WEB_URL_MAX } from '../web-url.js';
import { pageQuery } from '../http/pagination.js';

export type DomainRow = Selectable<DomainsTable>;

/** Largest page of `GET /domains` (spec, Limits). */
export const DOMAINS_MAX_PAGE_SIZE = 50;

/** Trimmed, lower-cased, punycoded host name (the service-wide reserved names are checked by the service). */
export const DomainSlug = z
  .string({ error: (iss) => (iss.input === undefined ? 'slug is required' : undefined) })
  .trim()
  .min(1, 'slug is required')
  .max(DOMAIN_SLUG_MAX)
  .transform((value, ctx) => {
    const slug = normalizeDomainSlug(value);
    const problem = domainSlugProblem(slug);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return slug;
  });

/**
 * Where the redirect sends visitors (`expiredUrl`, `notFoundUrl`, `placeholder`): an http(s) URL
 * as every URL field (../web-url.ts), `""` or null clears it, absent stays absent (PATCH leaves it
 * alone). The placeholder was free text before; it is a `Location` too (the root of the domain).
 */
const RedirectUrl = optionalWebUrlField({ max: WEB_URL_MAX });
/** Spec, Limits: domain placeholder 100. */
const Placeholder = optionalWebUrlField({ max: 100 });

/** Spec: `logo` must match `^data:image\/(png|jpeg|jpg|gif|webp);base64,`. */
const Logo = z
  .string()
  .regex(/^data:image\/(png|jpeg|jpg|gif|webp);base64,/, 'Logo must be a base64 data URL of a png, jpeg, jpg, gif or webp image.')
  .nullish();

/** Deep-link file content: JSON text (as the SDK sends it) or, for convenience, a JSON value. */
const DeepLinkFile = z
  .union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())])
  .nullish()
  .transform((value, ctx) => {
    if (value === undefined || value === null) return value;
    const text = normalizeDeepLinkFile(value);
    if (text === null) {
      ctx.addIssue({ code: 'custom', message: 'Must be a JSON object or array.' });
      return z.NEVER;
    }
    return text;
  });

const DomainFields = {
  expiredUrl: RedirectUrl,
  notFoundUrl: RedirectUrl,
  placeholder: Placeholder,
  logo: Logo,
  assetLinks: DeepLinkFile,
  appleAppSiteAssociation: DeepLinkFile,
};

export const CreateDomainBody = z.object({
  slug: DomainSlug,
  ...DomainFields,
  /** `false` (the default) also un-archives an archived domain of this workspace with this slug. */
  archived: z.boolean().default(false),
});
export type CreateDomainBody = z.infer<typeof CreateDomainBody>;

export const UpdateDomainBody = z.object({
  slug: DomainSlug.optional(),
  ...DomainFields,
  archived: z.boolean().optional(),
  /** Not in the published document: `true` makes this the workspace's primary domain. */
  primary: z.boolean().optional(),
});
export type UpdateDomainBody = z.infer<typeof UpdateDomainBody>;

export const DomainParams = z.object({ slug: z.string().min(1) });

/** Query booleans accept `true` / `false` in any case, nothing else (behaviour.md §3.2). */
const QueryBoolean = z
  .preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(['true', 'false']))
  .transform((v) => v === 'true');

export const ListDomainsQuery = z.object({
  /** false (default): only active domains; true: only archived ones (as published). */
  archived: QueryBoolean.optional().default(false),
  search: z.string().optional(),
  ...pageQuery({ maxPageSize: DOMAINS_MAX_PAGE_SIZE, defaultPage: 1, defaultPageSize: DOMAINS_MAX_PAGE_SIZE }),
});
export type ListDomainsQuery = z.infer<typeof ListDomainsQuery>;

export const DomainResponse = z
  .object({
    id: z.string(),
    slug: z.string(),
    verified: z.boolean(),
    primary: z.boolean(),
    archived: z.boolean(),
    placeholder: z.string().nullable(),
    expiredUrl: z.string().nullable(),
    notFoundUrl: z.string().nullable(),
    logo: z.string().nullable(),
    assetLinks: z.string().nullable(),
    appleAppSiteAssociation: z.string().nullable(),
    /** Returned by the published service (not in SDK 0.73.5); Waymark has no deep-view pages. */
    deepviewData: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** Domains bought through the published service; a self-hosted domain never has one. */
    registeredDomain: z
      .object({ id: z.string(), autoRenewalDisabledAt: z.string().nullable(), createdAt: z.string(), expiresAt: z.string(), renewalFee: z.number() })
      .nullable(),
  })
  .meta({ id: 'Domain' });
export type DomainResponse = z.infer<typeof DomainResponse>;

export const DeleteDomainResponse = z.object({ slug: z.string() });

const iso = (ms: number) => new Date(Number(ms)).toISOString();

export function toDomainResponse(row: DomainRow): DomainResponse {
  return {
    id: row.id,
    slug: row.slug,
    verified: row.verified === 1,
    primary: row.primary === 1,
    archived: row.archived === 1,
    placeholder: row.placeholder,
    expiredUrl: row.expired_url,
    notFoundUrl: row.not_found_url,
    logo: row.logo,
    assetLinks: row.asset_links,
    appleAppSiteAssociation: row.apple_app_site_association,
    deepviewData: null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    registeredDomain: null,
  };
}

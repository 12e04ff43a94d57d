/**
 * The Link object as every endpoint returns it (links, events, analytics top_links), and the
 * row → response mapper. Every field is present, `null` where unset: the official SDK rejects
 * a response that lacks one (behaviour.md §1.6).
 */
import { z } from 'zod';
import type { Selectable } from 'kysely';
import type { LinksTable } from '../db/tables.js';

export const TAG_COLORS = ['red', 'yellow', 'green', 'blue', 'purple', 'brown', 'gray', 'pink'] as const;

export const LinkTagResponse = z.object({ id: z.string(), name: z.string(), color: z.enum(TAG_COLORS) });
export type LinkTagResponse = z.infer<typeof LinkTagResponse>;

export const TestVariant = z.object({ url: z.string(), percentage: z.number() });

export const LinkResponse = z
  .object({
    id: z.string(),
    domain: z.string(),
    key: z.string(),
    url: z.string(),
    trackConversion: z.boolean(),
    externalId: z.string().nullable(),
    tenantId: z.string().nullable(),
    programId: z.string().nullable(),
    partnerId: z.string().nullable(),
    archived: z.boolean(),
    expiresAt: z.string().nullable(),
    expiredUrl: z.string().nullable(),
    disabledAt: z.string().nullable(),
    password: z.string().nullable(),
    proxy: z.boolean(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    image: z.string().nullable(),
    video: z.string().nullable(),
    rewrite: z.boolean(),
    doIndex: z.boolean(),
    ios: z.string().nullable(),
    android: z.string().nullable(),
    geo: z.record(z.string(), z.string()).nullable(),
    publicStats: z.boolean(),
    tags: z.array(LinkTagResponse).nullable(),
    folderId: z.string().nullable(),
    webhookIds: z.array(z.string()),
    comments: z.string().nullable(),
    shortLink: z.string(),
    qrCode: z.string(),
    utm_source: z.string().nullable(),
    utm_medium: z.string().nullable(),
    utm_campaign: z.string().nullable(),
    utm_term: z.string().nullable(),
    utm_content: z.string().nullable(),
    testVariants: z.array(TestVariant).nullable(),
    testStartedAt: z.string().nullable(),
    testCompletedAt: z.string().nullable(),
    userId: z.string().nullable(),
    workspaceId: z.string(),
    clicks: z.number(),
    leads: z.number(),
    conversions: z.number(),
    sales: z.number(),
    saleAmount: z.number(),
    lastClicked: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    /** @deprecated use `tags` */
    tagId: z.string().nullable(),
    /** @deprecated use `workspaceId` */
    projectId: z.string(),
    identifier: z.null(),
  })
  .meta({ id: 'Link' });
export type LinkResponse = z.infer<typeof LinkResponse>;

/** Settings the mapper needs: where QR codes are served and how short links are spelled. */
export interface LinkUrlSettings {
  baseUrl: string;
  shortLinkProtocol: 'http' | 'https';
}

const iso = (ms: number | null): string | null => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

function parseJson<T>(text: string | null): T | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/** `https://go.example.com/abc`; the root link of a domain has no path (behaviour.md §1.6). */
export function buildShortLink(settings: Pick<LinkUrlSettings, 'shortLinkProtocol'>, domain: string, key: string): string {
  return `${settings.shortLinkProtocol}://${domain}${key === '_root' ? '' : `/${key}`}`;
}

/** This service's own QR endpoint for the short link; `qr=1` marks scans as the `qr` trigger. */
export function buildQrCodeUrl(settings: Pick<LinkUrlSettings, 'baseUrl'>, shortLink: string): string {
  return `${settings.baseUrl}/qr?url=${encodeURIComponent(`${shortLink}?qr=1`)}`;
}

/** A `links` row as stored (the store's `LinkRow`). */
type LinkRow = Selectable<LinksTable>;

export function toLinkResponse(row: LinkRow, tags: LinkTagResponse[], settings: LinkUrlSettings, webhookIds: string[] = []): LinkResponse {
  return {
    id: row.id,
    domain: row.domain,
    key: row.key,
    url: row.url,
    trackConversion: row.track_conversion === 1,
    externalId: row.external_id,
    tenantId: row.tenant_id,
    programId: row.program_id,
    partnerId: row.partner_id,
    archived: row.archived === 1,
    expiresAt: iso(row.expires_at),
    expiredUrl: row.expired_url,
    disabledAt: iso(row.disabled_at),
    password: row.password,
    proxy: row.proxy === 1,
    title: row.title,
    description: row.description,
    image: row.image,
    video: row.video,
    rewrite: row.rewrite === 1,
    doIndex: row.do_index === 1,
    ios: row.ios,
    android: row.android,
    geo: parseJson<Record<string, string>>(row.geo),
    publicStats: row.public_stats === 1,
    tags,
    folderId: row.folder_id,
    webhookIds,
    comments: row.comments,
    shortLink: row.short_link,
    qrCode: buildQrCodeUrl(settings, row.short_link),
    utm_source: row.utm_source,
    utm_medium: row.utm_medium,
    utm_campaign: row.utm_campaign,
    utm_term: row.utm_term,
    utm_content: row.utm_content,
    testVariants: parseJson<{ url: string; percentage: number }[]>(row.test_variants),
    testStartedAt: iso(row.test_started_at),
    testCompletedAt: iso(row.test_completed_at),
    userId: row.user_id,
    workspaceId: row.workspace_id,
    clicks: Number(row.clicks),
    leads: Number(row.leads),
    conversions: Number(row.conversions),
    sales: Number(row.sales),
    saleAmount: Number(row.sale_amount),
    lastClicked: iso(row.last_clicked),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
    tagId: tags[0]?.id ?? null,
    projectId: row.workspace_id,
    identifier: null,
  };
}

/**
 * Workspace request and response schemas, and the row → response mapper.
 */
import { z } from 'zod';
import type { WorkspaceRow } from './store.js';
import { PLANS } from './plans.js';

export const WorkspaceParams = z.object({ idOrSlug: z.string().min(1) });

export const UpdateWorkspaceBody = z.object({
  name: z.string().trim().min(1).max(32).optional(),
  slug: z
    .string()
    .trim()
    .min(3)
    .max(48)
    .regex(/^[a-z0-9-]+$/i, 'Slugs can only contain letters, numbers and hyphens.')
    .optional(),
  logo: z.string().max(32000).nullish(),
  conversionEnabled: z.boolean().optional(),
});

/**
 * A workspace made from the dashboard (src/workspaces/creation.ts): the name and slug rules of
 * `PATCH /workspaces/{idOrSlug}`, both required; the slug is kept lower-case.
 */
export const NewWorkspaceBody = z.object({
  name: UpdateWorkspaceBody.shape.name.unwrap(),
  slug: UpdateWorkspaceBody.shape.slug.unwrap().transform((s) => s.toLowerCase()),
});
export type NewWorkspaceBody = z.infer<typeof NewWorkspaceBody>;

export const WorkspaceResponse = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  logo: z.string().nullable(),
  inviteCode: z.string().nullable(),
  plan: z.enum(PLANS),
  planTier: z.number(),
  stripeId: z.string().nullable(),
  processorId: z.string().nullable(),
  billingCycleStart: z.number(),
  paymentFailedAt: z.string().nullable(),
  stripeConnectId: z.string().nullable(),
  processorConnectId: z.string().nullable(),
  totalLinks: z.number(),
  usage: z.number(),
  usageLimit: z.number(),
  linksUsage: z.number(),
  linksLimit: z.number(),
  payoutsUsage: z.number(),
  payoutsLimit: z.number(),
  payoutFee: z.number(),
  domainsLimit: z.number(),
  tagsLimit: z.number(),
  foldersUsage: z.number(),
  foldersLimit: z.number(),
  groupsLimit: z.number(),
  usersLimit: z.number(),
  aiUsage: z.number(),
  aiLimit: z.number(),
  networkInvitesLimit: z.number(),
  conversionEnabled: z.boolean(),
  dotLinkClaimed: z.boolean(),
  createdAt: z.string(),
  users: z.array(z.object({ role: z.string(), defaultFolderId: z.string().nullable() })),
  domains: z.array(z.object({ slug: z.string(), primary: z.boolean(), verified: z.boolean() })),
  store: z.record(z.string(), z.unknown()).nullable(),
  allowedHostnames: z.array(z.string()).nullable(),
  ssoEmailDomain: z.string().nullable(),
  ssoEnforcedAt: z.string().nullable(),
  flags: z.record(z.string(), z.boolean()),
});

export type WorkspaceResponse = z.infer<typeof WorkspaceResponse>;

function parseJson<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function toWorkspaceResponse(
  row: WorkspaceRow,
  domains: { slug: string; primary: number; verified: number }[],
): WorkspaceResponse {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    logo: row.logo,
    inviteCode: row.invite_code,
    plan: row.plan as WorkspaceResponse['plan'],
    planTier: row.plan_tier,
    // A self-hosted service has no payment processor account; both spellings are present and null.
    stripeId: null,
    processorId: null,
    billingCycleStart: row.billing_cycle_start,
    paymentFailedAt: null,
    stripeConnectId: null,
    processorConnectId: null,
    totalLinks: row.total_links,
    usage: row.usage,
    usageLimit: row.usage_limit,
    linksUsage: row.links_usage,
    linksLimit: row.links_limit,
    payoutsUsage: row.payouts_usage,
    payoutsLimit: row.payouts_limit,
    payoutFee: row.payout_fee,
    domainsLimit: row.domains_limit,
    tagsLimit: row.tags_limit,
    foldersUsage: row.folders_usage,
    foldersLimit: row.folders_limit,
    groupsLimit: row.groups_limit,
    usersLimit: row.users_limit,
    aiUsage: row.ai_usage,
    aiLimit: row.ai_limit,
    networkInvitesLimit: row.network_invites_limit,
    conversionEnabled: row.conversion_enabled === 1,
    dotLinkClaimed: false,
    createdAt: new Date(row.created_at).toISOString(),
    users: [{ role: 'owner', defaultFolderId: null }],
    domains: domains.map((d) => ({ slug: d.slug, primary: d.primary === 1, verified: d.verified === 1 })),
    store: parseJson(row.store, null),
    allowedHostnames: parseJson(row.allowed_hostnames, []),
    ssoEmailDomain: null,
    ssoEnforcedAt: null,
    flags: parseJson(row.flags, {}),
  };
}

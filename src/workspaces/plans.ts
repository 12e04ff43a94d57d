/**
 * Per-plan quotas and rate limits, from the published pricing table (behaviour.md §8, §3.4).
 * A workspace copies its plan's limits when it is created or its plan changes, so an operator
 * can still raise one limit of one workspace by hand.
 */
export const PLANS = ['free', 'pro', 'business', 'business plus', 'business extra', 'business max', 'advanced', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  /** Order used for "business or higher" checks. */
  rank: number;
  linksLimit: number;
  usageLimit: number;
  domainsLimit: number;
  tagsLimit: number;
  foldersLimit: number;
  usersLimit: number;
  aiLimit: number;
  payoutsLimit: number;
  groupsLimit: number;
  networkInvitesLimit: number;
  payoutFee: number;
  /** API requests per minute per key. */
  apiPerMinute: number;
  /** Analytics and event-list requests per second per key. */
  analyticsPerSecond: number;
}

const UNLIMITED = 1_000_000_000;

const business: PlanLimits = {
  rank: 2, linksLimit: 10_000, usageLimit: 250_000, domainsLimit: 100, tagsLimit: UNLIMITED, foldersLimit: 20,
  usersLimit: 10, aiLimit: 1_000, payoutsLimit: 250_000, groupsLimit: 3, networkInvitesLimit: 10, payoutFee: 0.05,
  apiPerMinute: 1_200, analyticsPerSecond: 4,
};

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: {
    rank: 0, linksLimit: 25, usageLimit: 1_000, domainsLimit: 3, tagsLimit: 5, foldersLimit: 0, usersLimit: 1,
    aiLimit: 10, payoutsLimit: 0, groupsLimit: 0, networkInvitesLimit: 0, payoutFee: 0.05,
    apiPerMinute: 60, analyticsPerSecond: 0,
  },
  pro: {
    rank: 1, linksLimit: 1_000, usageLimit: 50_000, domainsLimit: 10, tagsLimit: 25, foldersLimit: 3, usersLimit: 3,
    aiLimit: 1_000, payoutsLimit: 0, groupsLimit: 1, networkInvitesLimit: 0, payoutFee: 0.05,
    apiPerMinute: 600, analyticsPerSecond: 2,
  },
  business,
  // Legacy business variants count as business (behaviour.md §3.3, step 11).
  'business plus': { ...business, linksLimit: 25_000, usageLimit: 600_000 },
  'business extra': { ...business, linksLimit: 25_000, usageLimit: 600_000 },
  'business max': { ...business, linksLimit: 25_000, usageLimit: 600_000 },
  advanced: {
    rank: 3, linksLimit: 50_000, usageLimit: 1_000_000, domainsLimit: 250, tagsLimit: UNLIMITED, foldersLimit: 50,
    usersLimit: 20, aiLimit: 1_000, payoutsLimit: 1_500_000, groupsLimit: 10, networkInvitesLimit: 25, payoutFee: 0.05,
    apiPerMinute: 3_000, analyticsPerSecond: 8,
  },
  enterprise: {
    rank: 4, linksLimit: 500_000, usageLimit: 5_000_000, domainsLimit: 250, tagsLimit: UNLIMITED, foldersLimit: UNLIMITED,
    usersLimit: 30, aiLimit: 1_000, payoutsLimit: UNLIMITED, groupsLimit: UNLIMITED, networkInvitesLimit: 100, payoutFee: 0.05,
    apiPerMinute: 3_000, analyticsPerSecond: 16,
  },
};

/** True when `plan` is at least `minimum` (legacy business variants count as business). */
export function planAtLeast(plan: string, minimum: Plan): boolean {
  const limits = PLAN_LIMITS[plan as Plan];
  return !!limits && limits.rank >= PLAN_LIMITS[minimum].rank;
}

/** "Business plus" → capitalised plan name for messages. */
export function planLabel(plan: string): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}

/**
 * Count quotas of a workspace (tags, folders, domains): the check and its message, and the row
 * lock that makes "count, then insert" safe when two requests race (its SQL is in store.ts).
 *
 * @example
 * await lockWorkspaceRow(trx, workspaceId);
 * assertUnderLimit({ resource: 'tags', count, limit: ws.tags_limit, plan: ws.plan });
 */
import { ApiError } from '../http/errors.js';
import { planLabel } from './plans.js';

/** The row lock is SQL and lives with the workspaces' storage; re-exported for the stores that take it. */
export { lockWorkspaceRow } from './store.js';

/** The resources whose number per workspace is capped by a `…_limit` column. */
export type CountedResource = 'tags' | 'folders' | 'domains';

const SINGULAR: Record<CountedResource, string> = { tags: 'tag', folders: 'folder', domains: 'domain' };

/**
 * The published wording (behaviour.md §8): "You've reached your limit of 5 tags on the Free plan.
 * Please upgrade for higher limits." A limit of 1 takes the singular.
 */
export function limitReachedMessage(resource: CountedResource, limit: number, plan: string): string {
  const noun = limit === 1 ? SINGULAR[resource] : resource;
  return `You've reached your limit of ${limit} ${noun} on the ${planLabel(plan)} plan. Please upgrade for higher limits.`;
}

/**
 * Throws 403 `forbidden` when the workspace already has `limit` or more of the resource.
 * The published service answers `exceeded_limit`; SDK 0.73.5 only accepts `forbidden` on a 403
 * (behaviour.md §3.1), so this code keeps SDK users on a typed error.
 */
export function assertUnderLimit(input: { resource: CountedResource; count: number; limit: number; plan: string }): void {
  if (input.count < input.limit) return;
  throw new ApiError('forbidden', limitReachedMessage(input.resource, input.limit, input.plan));
}

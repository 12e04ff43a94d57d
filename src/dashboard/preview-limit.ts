/**
 * The rate limit of the link builder's "Fetch from destination": each fetch is a request from
 * this server to another site, so one user (and one workspace's users together) may ask only so
 * many per minute (PREVIEW_FETCH_RATE_LIMIT_PER_USER / _PER_WORKSPACE). Counted with the
 * counters the API's limits use (db/rate-counters.ts: shared by every process on PostgreSQL),
 * after the session and role are checked, so only members spend it. A fetch refused by the
 * user's own limit does not count against the workspace, so one user cannot use up the others'.
 * Counters out of reach (PostgreSQL down): the fetch goes ahead, as for the API's limits.
 *
 * @example
 * const limit = createPreviewFetchLimit(database, { perUser: 30, perWorkspace: 120 });
 * const refused = await limit.take({ userId, workspaceId }); // null, or the 429 to answer
 */
import { ApiError } from '../http/errors.js';
import { openRateCounters } from '../db/rate-counters.js';
import type { OpenDatabase } from '../db/open.js';

export const PREVIEW_FETCH_WINDOW_MS = 60_000;

export interface PreviewFetchLimits {
  perUser: number;
  perWorkspace: number;
}

export function createPreviewFetchLimit(database: Pick<OpenDatabase, 'pgPool'>, options: PreviewFetchLimits & { onError?: (err: unknown, context: string) => void }) {
  const counters = openRateCounters(database, { onError: options.onError });

  const refusal = (max: number, whose: string, resetInMs: number) => {
    const seconds = Math.max(1, Math.ceil(resetInMs / 1000));
    return new ApiError('rate_limit_exceeded', `Too many fetches: the limit is ${max} per minute ${whose}. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`, {
      headers: { 'retry-after': String(seconds), 'x-ratelimit-limit': String(max), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(seconds) },
    });
  };

  return {
    /** Counts one fetch; the 429 to answer when past a limit, else null. */
    async take(who: { userId: string; workspaceId: string }): Promise<ApiError | null> {
      try {
        const user = await counters.hit(`preview:u:${who.userId}`, PREVIEW_FETCH_WINDOW_MS);
        if (user.hits > options.perUser) return refusal(options.perUser, 'for each user', user.resetInMs);
        const workspace = await counters.hit(`preview:w:${who.workspaceId}`, PREVIEW_FETCH_WINDOW_MS);
        if (workspace.hits > options.perWorkspace) return refusal(options.perWorkspace, 'for this workspace', workspace.resetInMs);
        return null;
      } catch (err) {
        options.onError?.(err, 'preview fetch rate counter failed; fetch let through');
        return null;
      }
    },
    close: () => counters.close(),
  };
}

export type PreviewFetchLimit = ReturnType<typeof createPreviewFetchLimit>;

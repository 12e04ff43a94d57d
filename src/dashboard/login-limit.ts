/**
 * Login throttling: attempts are counted per client address (IPv6 per /64) and per email address
 * (from anywhere), each over 15 minutes, with the rate-limit counters the API uses
 * (db/rate-counters.ts: shared by every process on PostgreSQL). Every attempt counts, successful
 * or not, and is counted before the password is checked, so the answer past a limit (429) says
 * nothing about the password or whether the account exists.
 *
 * @example
 * const limiter = createLoginLimiter(database, { perAddress: 30, perAccount: 10 });
 * await limiter.count(request.ip, email); // throws 429 past either limit
 */
import { ApiError } from '../http/errors.js';
import { addressKey } from '../http/client-address.js';
import { openRateCounters } from '../db/rate-counters.js';
import type { OpenDatabase } from '../db/open.js';
import { emailKey } from '../users/schema.js';

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

export function createLoginLimiter(
  database: Pick<OpenDatabase, 'pgPool'>,
  options: { perAddress: number; perAccount: number; onError?: (err: unknown, context: string) => void },
) {
  const counters = openRateCounters(database, { onError: options.onError });
  return {
    async count(ip: string, email: string): Promise<void> {
      let byAddress, byAccount;
      try {
        byAddress = await counters.hit(`login:ip:${addressKey(ip)}`, LOGIN_WINDOW_MS);
        byAccount = await counters.hit(`login:acct:${emailKey(email).slice(0, 254)}`, LOGIN_WINDOW_MS);
      } catch (err) {
        // Counters unreachable (PostgreSQL down): the login itself will fail on the same database.
        options.onError?.(err, 'login rate counter failed');
        return;
      }
      const over = byAddress.hits > options.perAddress ? byAddress : byAccount.hits > options.perAccount ? byAccount : null;
      if (!over) return;
      const minutes = Math.ceil(over.resetInMs / 60_000);
      throw new ApiError('rate_limit_exceeded', `Too many login attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
        headers: { 'retry-after': String(Math.ceil(over.resetInMs / 1000)) },
      });
    },
    close: () => counters.close(),
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;

/**
 * Login throttling, over 15 minutes, with the rate-limit counters the API uses
 * (db/rate-counters.ts: shared by every process on PostgreSQL). Only failures count: an attempt
 * is counted before the password is checked (so parallel guesses cannot slip past a limit, and
 * the answer past one, 429, says nothing about the password or the account), and given back when
 * it succeeds or is refused. What an attempt counts against depends on the browser:
 *
 * - a browser that logged in to this account before (its device token, users/devices.ts, is in
 *   the `wm_device` cookie): only that browser's own failures (`perAccount`). Nothing another
 *   client does spends its allowance, so failures from elsewhere cannot lock the owner out;
 * - any other: the client address's failures for any account (`perAddress`), its failures for
 *   this account (`perAccount`), and this account's failures from every such client together
 *   (`perAccountAnywhere`), the bound on guesses spread over many addresses.
 *
 * Addresses are the client's under TRUST_PROXY (`request.clientAddress`), IPv6 per /64.
 *
 * @example
 * const limiter = createLoginLimiter(database, { perAddress: 30, perAccount: 10, perAccountAnywhere: 50 });
 * const attempt = await limiter.begin({ address: request.clientAddress, email, device }); // 429 past a limit
 * if (await passwordIsRight()) await attempt.succeeded();
 */
import { ApiError } from '../http/errors.js';
import { addressKey } from '../http/client-address.js';
import { openRateCounters } from '../db/rate-counters.js';
import type { OpenDatabase } from '../db/open.js';
import { emailKey } from '../users/schema.js';

export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

export interface LoginLimits {
  /** Failed attempts per client address, for any account. */
  perAddress: number;
  /** Failed attempts per account from one client address, or from one known browser. */
  perAccount: number;
  /** Failed attempts per account from browsers it does not know, all addresses together. */
  perAccountAnywhere: number;
}

export interface LoginClient {
  /** The client's address (`request.clientAddress`). */
  address: string;
  email: string;
  /** The id of this browser's device token for the account (users/devices.ts), or null. */
  device: string | null;
}

export interface LoginAttempt {
  /** The password was right: the attempt does not count. */
  succeeded(): Promise<void>;
}

export function createLoginLimiter(database: Pick<OpenDatabase, 'pgPool'>, options: LoginLimits & { onError?: (err: unknown, context: string) => void }) {
  const counters = openRateCounters(database, { onError: options.onError });

  /** The counters an attempt spends, with their limits. */
  function bucketsOf(client: LoginClient): [string, number][] {
    const account = emailKey(client.email).slice(0, 254);
    if (client.device) return [[`login:device:${client.device}`, options.perAccount]];
    const address = addressKey(client.address);
    return [
      [`login:ip:${address}`, options.perAddress],
      [`login:acct-ip:${account}\n${address}`, options.perAccount],
      [`login:acct:${account}`, options.perAccountAnywhere],
    ];
  }

  const giveBack = (buckets: [string, number][]) => Promise.all(buckets.map(([key]) => counters.undo(key, LOGIN_WINDOW_MS))).then(() => undefined);

  return {
    /** Counts the attempt against its limits; throws 429 past one of them (and then counts nothing). */
    async begin(client: LoginClient): Promise<LoginAttempt> {
      const buckets = bucketsOf(client);
      let counts;
      try {
        counts = await Promise.all(buckets.map(([key]) => counters.hit(key, LOGIN_WINDOW_MS)));
      } catch (err) {
        // Counters unreachable (PostgreSQL down): the login itself will fail on the same database.
        options.onError?.(err, 'login rate counter failed');
        return { succeeded: async () => {} };
      }
      const over = counts.find((c, i) => c.hits > buckets[i]![1]);
      if (!over) {
        let done = false;
        return {
          async succeeded() {
            if (done) return;
            done = true;
            await giveBack(buckets).catch((err) => options.onError?.(err, 'login rate counter failed'));
          },
        };
      }
      await giveBack(buckets).catch((err) => options.onError?.(err, 'login rate counter failed'));
      const minutes = Math.ceil(over.resetInMs / 60_000);
      throw new ApiError('rate_limit_exceeded', `Too many failed login attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
        headers: { 'retry-after': String(Math.ceil(over.resetInMs / 1000)) },
      });
    },
    close: () => counters.close(),
  };
}

export type LoginLimiter = ReturnType<typeof createLoginLimiter>;

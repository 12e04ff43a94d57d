/**
 * Rate limits. Three kinds, counted by db/rate-counters.ts: in this process's memory on SQLite,
 * in one table that every process shares on PostgreSQL (so N processes allow the limit, not N×):
 *
 * - per API key (`@fastify/rate-limit`, keyed by the key's hash), as the published API has them
 *   (behaviour.md §3.4): analytics and events per second, everything else per minute, with limits
 *   from the workspace's plan unless the operator overrides them (a route that answers both kinds
 *   says which a request is with `config: { countsAsAnalytics }`: `POST /mcp`);
 * - per client address (`request.clientAddress`, under TRUST_PROXY; IPv6 per /64) for routes that
 *   need no key but cost work, declared with `config: { addressLimit: 'qr' }` (`GET /qr`) or
 *   `'tls'` (`GET /tls/allow`, counted in this process's memory on every engine: its answer comes
 *   from memory, and a TLS terminator asks the process beside it);
 * - per client address for requests that fail authentication (401): past the limit they are
 *   answered 429 instead. auth.ts calls `countFailedAuth`; valid keys from the same address are
 *   not affected, since only failures count.
 *
 * If the counters cannot be reached (PostgreSQL down), requests pass unlimited and the failure is
 * logged: a rate limit must not turn a database hiccup into an API outage of its own.
 *
 * @example
 * const limits = createRateLimits(database, { qrPerMinute: 600, tlsAllowPerMinute: 600, failedAuthPerMinute: 60, log: app.log });
 * await app.register(authPlugin, { workspaces, onUnauthorized: limits.countFailedAuth });
 * await app.register(limits.plugin);
 */
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { addressKey } from '../http/client-address.js';
import { PLAN_LIMITS, type Plan } from '../workspaces/plans.js';
import { openRateCounters, type RateCounters } from '../db/rate-counters.js';
import type { OpenDatabase } from '../db/open.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Calls without a key are counted per client address against this limit. */
    addressLimit?: 'qr' | 'tls';
    /**
     * Whether this request counts against the key's analytics limit (per second) rather than
     * its per-minute one; for routes that answer both kinds (`POST /mcp`: its analytics tools).
     * Runs after the body is parsed.
     */
    countsAsAnalytics?: (request: FastifyRequest) => boolean;
  }
}

export interface RateLimitOptions {
  /** Requests per minute per key for every plan (overrides the plan table). */
  perMinute?: number;
  /** Analytics requests per second per key for every plan (overrides the plan table). */
  analyticsPerSecond?: number;
  /** `GET /qr` calls per minute per client address. */
  qrPerMinute: number;
  /** `GET /tls/allow` calls per minute per client address. */
  tlsAllowPerMinute: number;
  /** Failed authentications (401) per minute per client address. */
  failedAuthPerMinute: number;
  log: FastifyBaseLogger;
  /** Count in this process's memory even on PostgreSQL (benchmarks). */
  inMemory?: boolean;
}

/** What one request is counted against. */
interface Bucket {
  key: string;
  max: number;
  windowMs: number;
  /** How the 429 message names the limit. */
  limit: string;
}

/** Key prefix of the buckets counted in this process's memory. */
const LOCAL = 'local:';

function isAnalytics(request: FastifyRequest): boolean {
  const decide = request.routeOptions.config.countsAsAnalytics;
  if (decide) return decide(request);
  const url = request.routeOptions.url ?? '';
  return url.startsWith('/analytics') || url.startsWith('/events');
}

export function createRateLimits(database: Pick<OpenDatabase, 'pgPool'>, options: RateLimitOptions) {
  const onError = (err: unknown, context: string) => options.log.warn({ err }, context);
  const counters: RateCounters = openRateCounters(database, { onError, inMemory: options.inMemory });
  // Buckets whose key starts with LOCAL are counted here whatever the engine.
  const local: RateCounters = openRateCounters(database, { onError, inMemory: true });

  const buckets = new WeakMap<FastifyRequest, Bucket | null>();
  /** The request's bucket, worked out once (the plugin asks for key, max and window separately). */
  function bucketOf(request: FastifyRequest): Bucket | null {
    let bucket = buckets.get(request);
    if (bucket !== undefined) return bucket;
    if (request.auth) {
      const plan = PLAN_LIMITS[request.auth.workspace.plan as Plan] ?? PLAN_LIMITS.free;
      bucket = isAnalytics(request)
        ? { key: `k:${request.auth.keyHash}:a`, max: options.analyticsPerSecond ?? plan.analyticsPerSecond, windowMs: 1_000, limit: 'per second for this key' }
        : { key: `k:${request.auth.keyHash}:m`, max: options.perMinute ?? plan.apiPerMinute, windowMs: 60_000, limit: 'per minute for this key' };
    } else if (request.routeOptions.config.addressLimit === 'qr') {
      bucket = { key: `ip:${addressKey(request.clientAddress)}:qr`, max: options.qrPerMinute, windowMs: 60_000, limit: 'QR codes per minute from this address' };
    } else if (request.routeOptions.config.addressLimit === 'tls') {
      bucket = { key: `${LOCAL}ip:${addressKey(request.clientAddress)}:tls`, max: options.tlsAllowPerMinute, windowMs: 60_000, limit: 'certificate questions per minute from this address' };
    } else {
      bucket = null; // health, docs, the client script, 404s
    }
    buckets.set(request, bucket);
    return bucket;
  }

  /** `@fastify/rate-limit`'s store contract over our counters. */
  class SharedStore {
    // The plugin passes the request's window as a third argument, which its type declarations omit.
    incr(key: string, cb: (err: Error | null, result?: { current: number; ttl: number }) => void, timeWindow = 60_000): void {
      (key.startsWith(LOCAL) ? local : counters).hit(key, timeWindow).then(
        (c) => cb(null, { current: c.hits, ttl: c.resetInMs }),
        (err: Error) => {
          onError(err, 'rate limit counter failed; request let through');
          cb(err);
        },
      );
    }
    child(): SharedStore {
      return this;
    }
  }

  const plugin = fp(
    async (app) => {
      await app.register(rateLimit, {
        global: true,
        hook: 'preHandler',
        store: SharedStore,
        skipOnError: true,
        allowList: (request) => bucketOf(request) === null,
        // keyGenerator runs before allowList, so it must cope with requests that are not limited.
        keyGenerator: (request) => bucketOf(request)?.key ?? '',
        max: (request) => bucketOf(request)!.max,
        timeWindow: (request) => bucketOf(request)!.windowMs,
        addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
        addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
        errorResponseBuilder: (request, context) =>
          new ApiError('rate_limit_exceeded', `Too many requests: the limit is ${context.max} ${bucketOf(request)!.limit}. Retry in ${context.after}.`),
      });
      app.addHook('onClose', async () => {
        await counters.close();
        await local.close();
      });
    },
    { name: 'waymark-rate-limit', dependencies: ['waymark-auth'] },
  );

  /** Counts a request that failed authentication; past the limit, throws 429 in place of its 401. */
  async function countFailedAuth(request: FastifyRequest): Promise<void> {
    const max = options.failedAuthPerMinute;
    let count;
    try {
      count = await counters.hit(`ip:${addressKey(request.clientAddress)}:auth`, 60_000);
    } catch (err) {
      onError(err, 'rate limit counter failed; request let through');
      return;
    }
    if (count.hits <= max) return;
    const seconds = Math.ceil(count.resetInMs / 1000);
    const reset = String(seconds);
    throw new ApiError(
      'rate_limit_exceeded',
      `Too many requests with a missing or invalid API key: the limit is ${max} per minute from this address. Retry in ${seconds} second${seconds === 1 ? '' : 's'}.`,
      { headers: { 'retry-after': reset, 'x-ratelimit-limit': String(max), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } },
    );
  }

  return { plugin, countFailedAuth };
}
export type RateLimits = ReturnType<typeof createRateLimits>;

/**
 * Per-key rate limits (`@fastify/rate-limit`, keyed by the key's hash). Two buckets as the
 * published API has them (behaviour.md §3.4): analytics and events per second, everything
 * else per minute, with limits from the workspace's plan unless the operator overrides them.
 * Counters live in process memory: with several processes each one counts on its own.
 */
import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';
import { PLAN_LIMITS, type Plan } from '../workspaces/plans.js';

export interface RateLimitOptions {
  /** Requests per minute per key for every plan (overrides the plan table). */
  perMinute?: number;
  /** Analytics requests per second per key for every plan (overrides the plan table). */
  analyticsPerSecond?: number;
}

function isAnalytics(request: FastifyRequest): boolean {
  const url = request.routeOptions.url ?? '';
  return url.startsWith('/analytics') || url.startsWith('/events');
}

export const rateLimitPlugin = fp<RateLimitOptions>(
  async (app, options) => {
    await app.register(rateLimit, {
      global: true,
      hook: 'preHandler',
      // Requests without an authenticated key (health, docs, QR, 404s) are not limited here.
      allowList: (request) => !request.auth,
      // keyGenerator runs before allowList, so it must cope with unauthenticated requests.
      keyGenerator: (request) => `${request.auth?.keyHash ?? 'anonymous'}:${isAnalytics(request) ? 'a' : 'm'}`,
      max: (request) => {
        const plan = PLAN_LIMITS[request.auth?.workspace.plan as Plan] ?? PLAN_LIMITS.free;
        return isAnalytics(request)
          ? (options.analyticsPerSecond ?? plan.analyticsPerSecond)
          : (options.perMinute ?? plan.apiPerMinute);
      },
      timeWindow: (request) => (isAnalytics(request) ? 1_000 : 60_000),
      addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
      addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
      errorResponseBuilder: (_request, context) =>
        new ApiError('rate_limit_exceeded', `Too many requests: the limit is ${context.max} per ${isAnalytics(_request) ? 'second' : 'minute'} for this key. Retry in ${context.after}.`),
    });
  },
  { name: 'waymark-rate-limit', dependencies: ['waymark-auth'] },
);

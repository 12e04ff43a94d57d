/**
 * Bearer-key authentication for every API route. Routes declare what they need in their config:
 *
 * @example
 * app.get('/links', { config: { permission: 'links.read' } }, handler);
 * app.get('/events', { config: { permission: 'analytics.read', minPlan: 'business' } }, handler);
 * app.get('/health', { config: { public: true } }, handler);
 */
import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import type { AuthContext, WorkspaceService } from '../workspaces/service.js';
import type { Permission } from '../workspaces/api-keys.js';
import { planAtLeast, planLabel, type Plan } from '../workspaces/plans.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
  interface FastifyContextConfig {
    /** No API key needed (health, docs, QR codes). */
    public?: boolean;
    /** Permission the key must grant. */
    permission?: Permission;
    /** Lowest plan allowed to call the route. */
    minPlan?: Plan;
  }
}

/** Reads `Authorization: Bearer <key>`; throws the published API's auth-stage errors (behaviour.md §3.3). */
export function bearerKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (!header) throw new ApiError('unauthorized', 'Missing Authorization header.');
  if (!/^Bearer /i.test(header)) {
    throw new ApiError('bad_request', "Misconfigured authorization header. Did you forget to add 'Bearer '?");
  }
  const key = header.slice(7).trim();
  if (!key) throw new ApiError('unauthorized', 'Missing API key after "Bearer ".');
  return key;
}

/** Throws 403 naming the missing permission. */
export function assertPermission(auth: AuthContext, permission: Permission): void {
  if (auth.permissions === 'all' || auth.permissions.has(permission)) return;
  throw new ApiError(
    'forbidden',
    `The provided key does not have the required permissions for this endpoint on the workspace '${auth.workspaceId}'. Having the '${permission}' scope would allow this request to continue.`,
  );
}

export function assertPlan(auth: AuthContext, minPlan: Plan, feature = 'This endpoint'): void {
  if (planAtLeast(auth.workspace.plan, minPlan)) return;
  throw new ApiError(
    'forbidden',
    `${feature} requires the ${planLabel(minPlan)} plan or higher; this workspace is on the ${planLabel(auth.workspace.plan)} plan.`,
  );
}

export interface AuthOptions {
  workspaces: WorkspaceService;
  /** Called when a request fails authentication (401), before the 401 is sent; may throw instead (rate-limit.ts: 429). */
  onUnauthorized?: (request: FastifyRequest) => Promise<void>;
}

export const authPlugin = fp<AuthOptions>(
  async (app, { workspaces, onUnauthorized }) => {
    app.decorateRequest('auth', null as unknown as AuthContext);
    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config;
      // Unknown routes (no routeOptions.url) fall through to the 404 handler without auth.
      const url = request.routeOptions.url;
      if (!url || config.public || url === '/docs' || url.startsWith('/docs/')) return;
      // OPTIONS is only ever a CORS preflight (http/cors.ts answers it or 404s): it carries no key.
      if (request.method === 'OPTIONS') return;
      try {
        request.auth = await workspaces.authenticate(bearerKey(request));
      } catch (err) {
        if (onUnauthorized && err instanceof ApiError && err.code === 'unauthorized') await onUnauthorized(request);
        throw err;
      }
    });
    // Permission and plan checks run after the rate limiter has counted the request.
    app.addHook('preHandler', async (request) => {
      const config = request.routeOptions.config;
      if (!request.auth) return;
      if (config.permission) assertPermission(request.auth, config.permission);
      if (config.minPlan) assertPlan(request.auth, config.minPlan);
    });
  },
  { name: 'waymark-auth' },
);

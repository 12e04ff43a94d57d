/**
 * Prometheus metrics (issue 29): `GET /metrics` in the text format, built with `prom-client` on a
 * registry of this app's own. Off unless METRICS_TOKEN is set (then served on the main port to
 * `Authorization: Bearer <token>`, compared in constant time) or METRICS_PORT is (then served on
 * that port, on HOST, to anyone who reaches it, and the token is asked there too when set).
 *
 * The redirect is not touched per request: its outcomes, clicks and the click writer's state are
 * counters the redirect module keeps anyway, copied at scrape (collectors.ts). API requests are
 * counted by a Fastify `onResponse` hook, labelled with the route's pattern (never the raw URL),
 * so the label sets are bounded by the routes. Appends to the event store are timed by wrapping
 * the store's append methods once, here.
 *
 * @example
 * const metrics = await createMetrics(config, sources); // undefined when off
 * metrics?.instrumentRequests(app); await app.register(metrics.routes);
 * // curl -H "Authorization: Bearer $METRICS_TOKEN" http://127.0.0.1:3000/metrics
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Lifecycle } from '../lifecycle.js';
import { ApiError } from '../http/errors.js';
import type { MetricSources } from './collectors.js';

/** Seconds: API answers from a millisecond (cached reads) to a minute (exports). */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const APPEND_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Whether `header` is `Bearer <token>`, in time independent of where they differ (digests of both compared). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (!header || !/^bearer /i.test(header)) return false;
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(header.slice(7).trim()), digest(token));
}

export async function createMetrics(config: Pick<Config, 'metrics' | 'host'>, sources: MetricSources) {
  const { token, port } = config.metrics;
  if (!token && port === undefined) return undefined;
  // Loaded only when metrics are on: prom-client and what it requires are ~80 modules, which
  // every process (each test's among them) would otherwise load for nothing.
  const [{ Counter, Histogram, Registry, collectDefaultMetrics }, { registerCollectors }] = await Promise.all([import('prom-client'), import('./collectors.js')]);
  const registry = new Registry();
  // process_* (CPU, memory, file descriptors) and nodejs_* (event-loop delay, heap, GC, handles).
  collectDefaultMetrics({ register: registry });
  registerCollectors(registry, sources);

  const requests = new Counter({
    name: 'waymark_http_requests_total',
    help: 'API and dashboard requests answered, by method, route pattern and status (short-link redirects are waymark_redirects_total)',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'waymark_http_request_duration_seconds',
    help: 'Time from a request to its answer, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'waymark_rate_limit_refusals_total',
    help: 'Requests answered 429 by a rate limit (per key, per address, failed authentication, logins, exports), by route pattern',
    labelNames: ['route'],
    registers: [registry],
  });
  const appends = new Histogram({
    name: 'waymark_event_store_append_seconds',
    help: 'Time of one append to the event store: events (leads, sales, imports) or click_batch (a click batch stored in the event log, as the main thread waits for it)',
    labelNames: ['kind'],
    buckets: APPEND_BUCKETS,
    registers: [registry],
  });

  /** Counts every answer of `app` (its onResponse hook). */
  function instrumentRequests(app: FastifyInstance): void {
    app.addHook('onResponse', async (request, reply) => {
      // The pattern (`/links/:linkId`); requests no route matched share one label.
      const route = request.routeOptions.url ?? 'unmatched';
      const status = reply.statusCode;
      requests.inc({ method: request.method, route, status });
      duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
      if (status === 429) refusals.inc({ route });
    });
  }

  /** Times `target[method]`, an async function, into the append histogram under `kind`. */
  function timeAppends<T extends object, K extends keyof T>(target: T | undefined, method: K, kind: string): void {
    if (!target) return;
    const original = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
    const observe = appends.labels({ kind });
    const timed = async (...args: unknown[]) => {
      const end = observe.startTimer();
      try {
        return await original.apply(target, args);
      } finally {
        end();
      }
    };
    (target as Record<K, unknown>)[method] = timed;
  }

  async function scrape(): Promise<string> {
    return registry.metrics();
  }

  /** GET /metrics on the main port, with the token; absent without one. */
  const routes: FastifyPluginAsync<{ onUnauthorized?: (request: FastifyRequest) => Promise<void> }> = async (app, { onUnauthorized }) => {
    if (!token) return;
    app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
      if (!bearerMatches(request.headers.authorization, token)) {
        await onUnauthorized?.(request);
        throw new ApiError('unauthorized', 'GET /metrics needs the METRICS_TOKEN as a bearer token.');
      }
      return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(await scrape());
    });
  };

  let server: Server | undefined;
  const lifecycle: Lifecycle = {
    async start() {
      if (port === undefined) return;
      server = createServer((req, res) => {
        const path = (req.url ?? '/').split('?')[0];
        if (req.method !== 'GET' || path !== '/metrics') {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
          return;
        }
        if (token && !bearerMatches(req.headers.authorization, token)) {
          res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized\n');
          return;
        }
        scrape().then(
          (body) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(body),
          () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
        );
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, config.host, () => resolve());
      });
    },
    async close() {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };

  return {
    registry,
    instrumentRequests,
    timeAppends,
    routes,
    lifecycle,
    scrape,
    /** The port the metrics server listens on (METRICS_PORT=0 in tests picks one). */
    port: () => {
      const address = server?.address();
      return typeof address === 'object' && address ? address.port : undefined;
    },
  };
}
export type Metrics = NonNullable<Awaited<ReturnType<typeof createMetrics>>>;

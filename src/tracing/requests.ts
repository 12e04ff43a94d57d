/**
 * A server span per API request and dashboard page (Fastify hooks of the root scope, so every
 * route has them; the redirect never enters Fastify and has none). A request carrying a W3C
 * `traceparent` continues its caller's trace. The span is named after the route's pattern
 * (`GET /links/:linkId`), never the raw URL; it carries the status, the workspace of the key, and
 * is failed for a 5xx answer.
 *
 * @example
 * if (traces.enabled) traceRequests(app, traces);
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TraceSpan, Traces } from './traces.js';

/** Where a path belongs: the dashboard's pages (and the pages it serves without login) or the API. */
export function surfaceOf(path: string): 'dashboard' | 'api' {
  return /^\/(dashboard|setup|stats)(\/|$|\?)/.test(path) ? 'dashboard' : 'api';
}

const spans = new WeakMap<FastifyRequest, TraceSpan>();

/** The request's span (the parent of the work it starts: an export's stream, an import); undefined when off. */
export function spanOf(request: FastifyRequest): TraceSpan | undefined {
  return spans.get(request);
}

export function traceRequests(app: FastifyInstance, traces: Traces): void {
  // The error behind a 5xx (the error handler answers it after onError).
  const errors = new WeakMap<FastifyRequest, Error>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const path = request.url.split('?', 1)[0]!;
    const header = request.headers.traceparent;
    spans.set(request, traces.start(`${request.method} ${route ?? 'unmatched'}`, {
      kind: 'server',
      parent: typeof header === 'string' ? header : undefined,
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'url.path': path,
        'url.scheme': request.protocol,
        'waymark.surface': surfaceOf(path),
        'waymark.request_id': request.id,
      },
    }));
    done();
  });
  const finish = (request: FastifyRequest, status: number | undefined) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    const auth = (request as { auth?: { workspaceId?: string } | null }).auth;
    span.set({ 'http.response.status_code': status, 'waymark.workspace_id': auth?.workspaceId ?? undefined, 'waymark.aborted': status === undefined ? true : undefined });
    if (status !== undefined && status >= 500) span.fail(errors.get(request) ?? new Error(`answered ${status}`));
    span.end();
  };
  app.addHook('onError', (request, _reply, error, done) => {
    errors.set(request, error);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    finish(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    finish(request, undefined);
    done();
  });
}

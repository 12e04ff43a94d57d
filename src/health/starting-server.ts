/**
 * The HTTP server, listening before the database is opened, so that a start is observable: while
 * migrations, the event store's opening, the click writer's start and the spill replay run,
 * `GET /health` answers 200, `GET /ready` 503 with the step, and every other request 503
 * `service_unavailable` (the spec's error body, `Retry-After`). The app then adopts this server as
 * Fastify's (`adopt`, app.ts's serverFactory), and `open()` hands requests to it once the start is
 * done; there is no moment in which the port is closed.
 *
 * @example
 * const starting = await listenWhileStarting({ port: 3000, host: '0.0.0.0', docsUrl, readiness });
 * const { app } = await buildApp({ config, database, readiness, starting }); // adopt() inside
 * await app.listen({ port: 3000, host: '0.0.0.0' }); // reports the address only
 * starting.open();
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { clientErrorHandler, errorBody } from '../http/errors.js';
import { readyAnswer, type Readiness } from './readiness.js';
import { HEALTH_BODY } from './routes.js';

/** Seconds a client is told to wait before it tries again while the process starts. */
const RETRY_AFTER_S = 5;

export interface StartingServer {
  readonly server: Server;
  /**
   * Fastify's serverFactory: the server, whose requests go to `route` once `open()` is called.
   * Fastify's later `listen()` on it only reports the address it already listens on.
   */
  adopt(route: (req: IncomingMessage, res: ServerResponse) => void): Server;
  /** The start is done: requests go to the app from now on. */
  open(): void;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
}

/** The answer while the process starts: /health and /ready as the app gives them, 503 for the rest. */
export function answerWhileStarting(readiness: Readiness, docsUrl: string) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    const probe = req.method === 'GET' || req.method === 'HEAD';
    if (probe && path === '/health') return send(res, 200, HEALTH_BODY);
    if (probe && path === '/ready') {
      const answer = readyAnswer(readiness.state);
      return send(res, answer.status, answer.body);
    }
    send(res, 503, errorBody(docsUrl, 'service_unavailable', 'Waymark is starting; try again in a few seconds.'), { 'retry-after': String(RETRY_AFTER_S) });
  };
}

export async function listenWhileStarting(options: { port: number; host: string; docsUrl: string; readiness: Readiness }): Promise<StartingServer> {
  const whileStarting = answerWhileStarting(options.readiness, options.docsUrl);
  let route: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let open = false;
  const server = createServer((req, res) => (open ? route!(req, res) : whileStarting(req, res)));
  const onClientError = clientErrorHandler(options.docsUrl);
  server.on('clientError', onClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host: options.host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    adopt(appRoute) {
      route = appRoute;
      // Fastify installs its own client error handler on the server it is given.
      server.off('clientError', onClientError);
      server.listen = ((...args: unknown[]) => {
        const callback = args.find((a) => typeof a === 'function') as (() => void) | undefined;
        process.nextTick(() => {
          server.emit('listening');
          callback?.();
        });
        return server;
      }) as Server['listen'];
      return server;
    },
    open() {
      if (!route) throw new Error('the app has not adopted the starting server');
      open = true;
    },
  };
}

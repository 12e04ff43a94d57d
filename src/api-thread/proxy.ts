/**
 * The front's road to the API thread: every request the redirect does not answer is streamed,
 * both ways, to the API's server on a private Unix socket over kept-alive connections. The front
 * says who asked the way a proxy does (`X-Forwarded-For` + the peer; `X-Forwarded-Proto` and
 * `-Host` kept only when `TRUST_PROXY` trusts the peer), and the API thread trusts exactly that one
 * hop more (http/client-address.ts `behindFront`). An API thread that cannot be reached answers
 * 503 with the error body; a client that leaves aborts its request upstream.
 *
 * @example
 * const proxy = createApiProxy({ socketPath, docsUrl, trust: clientAddressRule(setting).fastifyTrust });
 * server.on('request', (req, res) => redirect.tryHandle(req, res) || proxy.forward(req, res));
 */
import { Agent, request, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { errorBody } from '../http/errors.js';

/** Connection-level headers, which a proxy neither forwards nor copies back (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'expect', 'transfer-encoding']);

export interface ApiProxyOptions {
  socketPath: string;
  docsUrl: string;
  /** Whether `TRUST_PROXY` trusts the peer (hop 0): then its forwarding headers stand. */
  trust: false | ((address: string, hop: number) => boolean);
  /** Called when the API's answer arrives, before it is passed on (the front applies link changes first). */
  onAnswer?(): void;
  /** Kept-alive connections to the API thread at most. */
  maxSockets?: number;
}

export interface ApiProxy {
  forward(req: IncomingMessage, res: ServerResponse): void;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** Answers 503 with the error body without asking the API thread (it is down). */
  refuse(res: ServerResponse): void;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function createApiProxy(options: ApiProxyOptions): ApiProxy {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256, maxFreeSockets: 64 });
  const { trust } = options;
  let inFlight = 0;

  const unavailable = (res: ServerResponse) => {
    if (res.headersSent) return void res.destroy();
    const text = JSON.stringify(errorBody(options.docsUrl, 'service_unavailable', 'The API is not available right now; try again in a few seconds.'));
    res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'retry-after': '5', 'cache-control': 'no-store' });
    res.end(text);
  };

  return {
    get inFlight() {
      return inFlight;
    },
    forward(req, res) {
      inFlight++;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        inFlight--;
      };
      res.on('close', finish);
      const upstream = request(
        { agent, socketPath: options.socketPath, method: req.method, path: req.url, headers: forwardedHeaders(req, trust) },
        (answer) => {
          options.onAnswer?.();
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, copiedHeaders(answer.headers));
          answer.pipe(res);
          answer.on('error', () => res.destroy());
        },
      );
      upstream.on('error', () => unavailable(res));
      // The client left before its answer was complete: the API stops working on it.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      req.on('error', () => upstream.destroy());
      req.pipe(upstream);
    },
    refuse: unavailable,
    close: () => agent.destroy(),
  };
}

/** The request's headers for the API thread: hop-by-hop ones dropped, the forwarding ones set. */
export function forwardedHeaders(req: IncomingMessage, trust: ApiProxyOptions['trust']): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
  // A body the client sent chunked goes on chunked (Node encodes it again).
  if (req.headers['transfer-encoding'] && req.headers['content-length'] === undefined) headers['transfer-encoding'] = 'chunked';
  const peer = req.socket.remoteAddress ?? '';
  const trusted = trust !== false && trust(peer, 0);
  const prior = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${peer}` : peer;
  if (!trusted || !req.headers['x-forwarded-proto']) headers['x-forwarded-proto'] = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  if (!trusted) delete headers['x-forwarded-host'];
  return headers;
}

function copiedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
  return out;
}

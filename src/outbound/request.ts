/**
 * Server-side HTTP requests to addresses users give (webhook receivers; link previews): only to
 * global unicast addresses (address.ts) unless the operator allows private ones, bounded in time
 * and in the bytes of the answer read, never following redirects (a 3xx is the answer).
 *
 * The address check runs on the address actually connected to: the request's own DNS `lookup`
 * refuses a name if any address it resolves to is refused (so a name that resolved to a public
 * address when a receiver was saved and to 127.0.0.1 when it is called, DNS rebinding, is refused
 * too), and IP literals, which skip `lookup`, are checked before connecting. Keep-alive agents
 * (`createOutboundAgents`) carry the checking `lookup` themselves, so every NEW pooled connection is
 * checked; a pooled socket is keyed by host:port (and TLS name) and only carries requests to the
 * host it was opened for. An answer not read to its end (timeout, abort, oversized) destroys its
 * socket rather than pooling it.
 *
 * @example
 * const agents = createOutboundAgents({ allowPrivate: false, maxSocketsPerHost: 8 });
 * const a = await outboundRequest('https://example.com/hook', { method: 'POST', body, timeoutMs: 10_000, maxAnswerBytes: 4096, allowPrivate: false, agents });
 * if (a.refused) …; // never retried: the address will not change its nature
 * const why = await refusedTarget('http://[::7f00:1]/', { allowPrivate: false }); // 'refused: ::7f00:1 is the private or reserved address …'
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { isAllowedAddress, refusedHost } from './address.js';

/** node:dns `lookup` with `{ all: true }`, or a stand-in (tests). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** A refusal by the address policy: never worth another attempt. */
export class RefusedAddress extends Error {}

export function refusal(host: string, address: string): RefusedAddress {
  const what = host === address ? `${host} is` : `${host} resolves to`;
  return new RefusedAddress(`refused: ${what} the private or reserved address ${address} (WEBHOOK_ALLOW_PRIVATE=true allows it)`);
}

/** A host refused as spelled, before any DNS (address.ts `refusedHost`: IP literals, local names). */
export function refusedAsSpelled(host: string): RefusedAddress | null {
  const why = refusedHost(host);
  return why ? new RefusedAddress(`refused: ${host} is ${why} (WEBHOOK_ALLOW_PRIVATE=true allows it)`) : null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement, in both of its callback forms, that fails with RefusedAddress when
 * any address of the name is refused (a name with a public and a private address is refused).
 */
export function guardedLookup(resolve: Resolve = systemResolve) {
  return (hostname: string, options: { all?: boolean; family?: number | string } | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    const spelled = refusedAsSpelled(hostname);
    if (spelled) return void process.nextTick(callback, spelled);
    resolve(hostname).then(
      (found) => {
        const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : Number(opts.family ?? 0);
        const all = family ? found.filter((a) => a.family === family) : found;
        const bad = found.find((a) => !isAllowedAddress(a.address));
        if (bad) return callback(refusal(hostname, bad.address));
        if (!all.length) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
        if (opts.all) callback(null, all);
        else callback(null, all[0]!.address, all[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err),
    );
  };
}

/** The host of a URL as the address checks see it: brackets of IPv6 literals removed. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Why a receiver URL would be refused, checked when it is saved: only http and https, an IP
 * literal by the policy, a local name (`localhost.`, `*.localhost`… address.ts `refusedHost`)
 * whatever its spelling, any other name by every address it resolves to now. Null: allowed, or the name
 * does not resolve within `timeoutMs` (it may later; every request is checked again anyway).
 */
export async function refusedTarget(url: string, options: { allowPrivate: boolean; resolve?: Resolve; timeoutMs?: number }): Promise<string | null> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'invalid URL';
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return 'only http and https URLs are allowed';
  if (options.allowPrivate) return null;
  const host = hostOf(target);
  const spelled = refusedAsSpelled(host);
  if (spelled) return spelled.message;
  if (isIP(host)) return null;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), options.timeoutMs ?? 3000)));
  try {
    const found = await Promise.race([(options.resolve ?? systemResolve)(host).catch(() => null), timeout]);
    const bad = found?.find((a) => !isAllowedAddress(a.address));
    return bad ? refusal(host, bad.address).message : null;
  } finally {
    clearTimeout(timer);
  }
}

/** Keep-alive sockets per host:port, for one owner's life (the webhook dispatcher). */
export interface OutboundAgents {
  http: http.Agent;
  https: https.Agent;
  /** Closes the pooled sockets. */
  destroy(): void;
}

/** One keep-alive agent per protocol: `maxSocketsPerHost` sockets per host:port, idle ones closed after `idleMs`. */
export function createOutboundAgents(options: { allowPrivate: boolean; maxSocketsPerHost: number; idleMs?: number; resolve?: Resolve }): OutboundAgents {
  // `timeout` is the idle socket's timeout in the pool (a request sets its own while in use). The
  // guard is bound to the agent too (its options win over the request's when it opens a socket),
  // so a pool made without WEBHOOK_ALLOW_PRIVATE never opens an unchecked connection.
  const max = options.maxSocketsPerHost;
  const agentOptions = {
    ...(options.allowPrivate ? {} : { lookup: guardedLookup(options.resolve) as never }),
    keepAlive: true, maxSockets: max, maxFreeSockets: max, timeout: options.idleMs ?? 5_000, scheduling: 'lifo' as const,
  };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  return { ...agents, destroy: () => { agents.http.destroy(); agents.https.destroy(); } };
}

export interface OutboundOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The whole request, connection included. */
  timeoutMs: number;
  /** Bytes of the answer read at most; past them the socket is destroyed (`truncated`). */
  maxAnswerBytes: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Pooled connections; without them, a new connection per request. */
  agents?: OutboundAgents;
  /** Name resolution (tests); the system's by default. */
  resolve?: Resolve;
}

export interface OutboundAnswer {
  /** Null when no answer came (refused, timed out, connection error). */
  statusCode: number | null;
  body: Buffer;
  truncated: boolean;
  /** Null when an answer was read, whatever its status. */
  error: string | null;
  /** The address policy refused the target: asking again cannot succeed. */
  refused: boolean;
  timedOut: boolean;
  latencyMs: number;
  /** The answer's `location` and `content-type`, when an answer came and had them. */
  headers?: { location?: string; 'content-type'?: string };
}

/** One request; never throws. A pooled socket the host closed just as it was reused is retried once on a new connection. */
export async function outboundRequest(url: string, options: OutboundOptions): Promise<OutboundAnswer> {
  const started = performance.now();
  const fail = (error: string, extra: Partial<OutboundAnswer> = {}): OutboundAnswer => ({
    statusCode: null, body: Buffer.alloc(0), truncated: false, error, refused: false, timedOut: false, latencyMs: Math.round(performance.now() - started), ...extra,
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return fail('invalid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return fail('only http and https URLs are allowed');
  const host = hostOf(target);
  const spelled = options.allowPrivate ? null : refusedAsSpelled(host);
  if (spelled) return fail(spelled.message, { refused: true });
  const first = await attemptOnce(target, options);
  // The request never got an answer, so it goes once more, on a new connection (a receiver may
  // see it twice, which at-least-once delivery allows).
  const answer = first.staleSocket && !options.signal?.aborted ? await attemptOnce(target, { ...options, agents: undefined }) : first;
  const { staleSocket: _, ...rest } = answer;
  return { ...rest, latencyMs: Math.round(performance.now() - started) };
}

function attemptOnce(target: URL, options: OutboundOptions): Promise<OutboundAnswer & { staleSocket?: boolean }> {
  const client = target.protocol === 'https:' ? https : http;
  const agent = options.agents ? (target.protocol === 'https:' ? options.agents.https : options.agents.http) : false;
  const body = options.body ?? '';
  const base = { statusCode: null, body: Buffer.alloc(0), truncated: false, error: null, refused: false, timedOut: false, latencyMs: 0 };
  const timedOut = `timed out after ${options.timeoutMs} ms`;
  return new Promise((resolve) => {
    const req = client.request(
      target,
      {
        method: options.method ?? 'GET',
        headers: { ...options.headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
        timeout: options.timeoutMs,
        signal: options.signal,
        agent,
        // Passed by the agent to each socket it creates: every new connection is checked.
        ...(options.allowPrivate ? {} : { lookup: guardedLookup(options.resolve) as never }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let read = 0;
        let settled = false;
        const finish = (truncated: boolean) => {
          if (settled) return;
          settled = true;
          const headers = { location: res.headers.location, 'content-type': res.headers['content-type'] };
          resolve({ ...base, statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks), truncated, headers });
        };
        res.on('data', (chunk: Buffer) => {
          const room = options.maxAnswerBytes - read;
          read += chunk.length;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          if (read > options.maxAnswerBytes) {
            // Not read to its end: the socket cannot be reused.
            res.destroy();
            finish(true);
          }
        });
        res.on('end', () => finish(false));
        res.on('error', () => finish(false));
      },
    );
    let expired = false;
    const deadline = setTimeout(() => {
      expired = true;
      req.destroy(new Error(timedOut));
    }, options.timeoutMs);
    req.on('timeout', () => {
      expired = true;
      req.destroy(new Error(timedOut));
    });
    req.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      const refused = err instanceof RefusedAddress;
      const staleSocket = req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
      const error = refused || expired ? err.message : `${code ?? 'error'}: ${err.message}`.slice(0, 300);
      resolve({ ...base, error, refused, timedOut: expired, staleSocket });
    });
    req.on('close', () => clearTimeout(deadline));
    req.end(body);
  });
}

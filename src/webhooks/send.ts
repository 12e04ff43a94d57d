/**
 * One HTTP attempt of a webhook delivery: the signatures, the refusal of private receivers
 * (SSRF), and the request itself (10 s, no redirects, the answer read up to 4 KB).
 *
 * Signatures, one secret for both (`whsec_` + base64):
 * - `Dub-Signature`: hex HMAC-SHA256 of the body keyed with the whole secret string (the published
 *   service's scheme, so receivers written for it keep working);
 * - Standard Webhooks: `webhook-id` (the event id, the same on every retry), `webhook-timestamp`
 *   (Unix seconds) and `webhook-signature: v1,<base64 HMAC of "id.timestamp.body">` keyed with the
 *   decoded base64 part of the secret; receivers check the timestamp against replays.
 *
 * The private-address check runs on the address actually connected to (a `lookup` of our own
 * on the request), so a name that resolves to a public address when checked and to 127.0.0.1 when
 * connecting (DNS rebinding) is refused too. IP literals skip `lookup` and are checked first.
 *
 * Connections are kept alive per receiver (`createSendAgents`: one agent per protocol and
 * dispatcher). The agent passes the request's options, `lookup` included, to every socket it
 * creates, so each NEW connection is checked; a pooled socket is keyed by host:port (and TLS
 * name), so it only ever carries requests to the receiver it was opened (and checked) for. A socket
 * whose answer was not read to its end (timeout, oversized answer, error) is destroyed, not pooled.
 */
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';

export const SEND_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 4096;

export function dubSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

export function signedHeaders(secret: string, eventId: string, body: string, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'Waymark-Webhooks/1.0',
    'dub-signature': dubSignature(secret, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(secret, eventId, timestamp, body),
  };
}

// Loopback, private, shared (CGNAT), link-local (cloud metadata 169.254.169.254), unique-local
// (fd00:ec2::254), unspecified, multicast and reserved ranges, and IPv4 mapped into IPv6.
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) BLOCKED.addSubnet(net, prefix, 'ipv6');

/** True when a receiver at this address would reach the host's own network. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, 'ipv6');
}

class RefusedAddress extends Error {}

function refusal(host: string, address: string): RefusedAddress {
  return new RefusedAddress(`refused: ${host} resolves to the private or reserved address ${address} (WEBHOOK_ALLOW_PRIVATE=true allows it)`);
}

/** dns.lookup that fails for private addresses, in both of its callback forms. */
function guardedLookup(hostname: string, options: object, callback: (...args: unknown[]) => void): void {
  dnsLookup(hostname, { ...options } as never, (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
    if (err) return callback(err);
    const all = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
    const bad = all.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(refusal(hostname, bad.address));
    if (Array.isArray(address)) callback(null, address);
    else callback(null, address, family);
  });
}

/** Keep-alive sockets per receiver; the pool of one dispatcher. */
export interface SendAgents {
  http: http.Agent;
  https: https.Agent;
  /** Closes the pooled sockets (at the dispatcher's close). */
  destroy(): void;
}

/** Sockets open at once to one receiver (host:port), in use or idle. */
export const MAX_SOCKETS_PER_RECEIVER = 8;

/**
 * One keep-alive agent per protocol: at most 8 sockets per receiver, idle ones closed after 5 s.
 *
 * @example
 * const agents = createSendAgents(false);
 * await send(url, body, headers, { allowPrivate: false, agents });
 * agents.destroy();
 */
export function createSendAgents(allowPrivate: boolean): SendAgents {
  // `timeout` is the idle socket's timeout in the pool (a request sets its own while in use). The
  // guard is bound to the agent too (its options win over the request's when it opens a socket),
  // so a pool made without WEBHOOK_ALLOW_PRIVATE never opens an unchecked connection.
  const options = { ...(allowPrivate ? {} : { lookup: guardedLookup as never }), keepAlive: true, maxSockets: MAX_SOCKETS_PER_RECEIVER, maxFreeSockets: MAX_SOCKETS_PER_RECEIVER, timeout: 5_000, scheduling: 'lifo' as const };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  return { ...agents, destroy: () => { agents.http.destroy(); agents.https.destroy(); } };
}

export interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  /** Null on a 2xx. */
  error: string | null;
}

/**
 * POSTs the body; never throws. `signal` aborts it (shutdown). Without `agents`, a new connection
 * per call; with them, a pooled one when the receiver has one idle.
 */
export function send(url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<Attempt> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string | null): Attempt => ({ statusCode, latencyMs: Math.round(performance.now() - started), error });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(done(null, 'invalid URL'));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.resolve(done(null, 'only http and https receivers are allowed'));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) && isPrivateAddress(host)) return Promise.resolve(done(null, refusal(host, host).message));
  return attemptOnce(target, body, headers, options).then((first) =>
    // A pooled socket the receiver closed as idle just as we reused it: the request never got an
    // answer, so it goes once more, on a new connection (a retry the receiver may see as a second
    // delivery of the same event id, which at-least-once delivery allows).
    first.staleSocket && !options.signal?.aborted ? attemptOnce(target, body, headers, { ...options, agents: undefined }) : first,
  ).then(({ statusCode, error }) => done(statusCode, error));
}

export interface SendOptions {
  allowPrivate: boolean;
  signal?: AbortSignal;
  agents?: SendAgents;
}

function attemptOnce(target: URL, body: string, headers: Record<string, string>, options: SendOptions): Promise<{ statusCode: number | null; error: string | null; staleSocket?: boolean }> {
  const done = (statusCode: number | null, error: string | null) => ({ statusCode, error });
  const client = target.protocol === 'https:' ? https : http;
  const agent = options.agents ? (target.protocol === 'https:' ? options.agents.https : options.agents.http) : false;
  return new Promise((resolve) => {
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        timeout: SEND_TIMEOUT_MS,
        signal: options.signal,
        agent,
        // Passed by the agent to each socket it creates: every new connection is checked.
        ...(options.allowPrivate ? {} : { lookup: guardedLookup as never }),
      },
      (res) => {
        let read = 0;
        const status = res.statusCode ?? 0;
        const finish = () => resolve(done(status, status >= 200 && status < 300 ? null : `receiver answered ${status}`));
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) {
            res.destroy();
            finish();
          }
        });
        res.on('end', finish);
        res.on('error', finish);
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`timed out after ${SEND_TIMEOUT_MS} ms`)), SEND_TIMEOUT_MS);
    req.on('timeout', () => req.destroy(new Error(`timed out after ${SEND_TIMEOUT_MS} ms`)));
    req.on('error', (err) => {
      const code = (err as NodeJS.ErrnoException).code;
      const stale = req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
      resolve({ ...done(null, err instanceof RefusedAddress ? err.message : `${code ?? 'error'}: ${err.message}`.slice(0, 300)), staleSocket: stale });
    });
    req.on('close', () => clearTimeout(deadline));
    req.end(body);
  });
}

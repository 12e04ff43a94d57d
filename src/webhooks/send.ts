/**
 * One HTTP attempt of a webhook delivery: the signatures, the refusal of private receivers
 * (SSRF), and the request itself (10 s by default, no redirects, the answer read up to 4 KB).
 *
 * Signatures, one secret for both (`whsec_` + base64):
 * - `Dub-Signature`: hex HMAC-SHA256 of the body keyed with the whole secret string (the published
 *   service's scheme, so receivers written for it keep working);
 * - Standard Webhooks: `webhook-id` (the event id, the same on every retry), `webhook-timestamp`
 *   (Unix seconds) and `webhook-signature: v1,<base64 HMAC of "id.timestamp.body">` keyed with the
 *   decoded base64 part of the secret; receivers check the timestamp against replays.
 *
 * The request itself is the one guarded outbound request of src/outbound/ (request.ts): only
 * global unicast addresses unless WEBHOOK_ALLOW_PRIVATE, checked on the address actually connected
 * to (DNS rebinding), no redirects followed, bounded in time and in the answer read. Connections
 * are kept alive per receiver (`createSendAgents`: one agent per protocol and dispatcher, every new
 * connection checked, a pooled socket only reused for its own host:port).
 */
import { createHmac } from 'node:crypto';
import { createOutboundAgents, outboundRequest, type OutboundAgents } from '../outbound/request.js';

export const SEND_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 4096;
/** Bytes of an answer kept with its attempt (the deliveries' history). */
export const RESPONSE_KEPT_BYTES = 1024;

/** The start of an answer as text that every engine stores (PostgreSQL's text holds no NUL). */
export function responseText(body: Buffer, answered: boolean): string | null {
  if (!answered) return null;
  return body.subarray(0, RESPONSE_KEPT_BYTES).toString('utf8').replaceAll('\u0000', '');
}

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

/** Sockets open at once to one receiver (host:port), in use or idle: the dispatcher's per-receiver cap by default. */
export const MAX_SOCKETS_PER_RECEIVER = 8;

/**
 * One keep-alive agent per protocol for the dispatcher's sends (src/outbound/request.ts): at most
 * `maxSockets` sockets per receiver, idle ones closed after 5 s.
 *
 * @example
 * const agents = createSendAgents(false);
 * await send(url, body, headers, { allowPrivate: false, agents });
 * agents.destroy();
 */
export function createSendAgents(allowPrivate: boolean, maxSockets = MAX_SOCKETS_PER_RECEIVER): OutboundAgents {
  return createOutboundAgents({ allowPrivate, maxSocketsPerHost: maxSockets });
}

export interface Attempt {
  statusCode: number | null;
  latencyMs: number;
  /** Null on a 2xx. */
  error: string | null;
  /** The first `RESPONSE_KEPT_BYTES` of the receiver's answer as text; null when none came. */
  response: string | null;
  /** The receiver's address is not allowed: failed for good, never retried. */
  refused: boolean;
  /** No answer within the timeout: the dispatcher backs the receiver off. */
  timedOut: boolean;
}

export interface SendOptions {
  allowPrivate: boolean;
  signal?: AbortSignal;
  agents?: OutboundAgents;
  /** Default SEND_TIMEOUT_MS (WEBHOOK_SEND_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * POSTs the body; never throws. `signal` aborts it (shutdown). Without `agents`, a new connection
 * per call; with them, a pooled one when the receiver has one idle.
 */
export async function send(url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<Attempt> {
  const a = await outboundRequest(url, {
    method: 'POST', headers, body, timeoutMs: options.timeoutMs ?? SEND_TIMEOUT_MS, maxAnswerBytes: MAX_ANSWER_BYTES,
    allowPrivate: options.allowPrivate, signal: options.signal, agents: options.agents,
  });
  const status = a.statusCode;
  const error = a.error ?? (status !== null && status >= 200 && status < 300 ? null : `receiver answered ${status}`);
  return { statusCode: status, latencyMs: a.latencyMs, error, response: responseText(a.body, status !== null), refused: a.refused, timedOut: a.timedOut };
}

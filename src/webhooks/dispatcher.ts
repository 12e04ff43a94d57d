/**
 * Sends due webhook deliveries, never on the redirect thread (on a worker thread of its own with a
 * connection of its own, dispatch-worker.ts; in process for an in-memory database), fairly between
 * workspaces and receivers (fairness.ts):
 *
 * - each pass looks at who waits (due deliveries per webhook, click work per webhook: click-expand.ts
 *   turns a click batch's one row into deliveries a chunk at a time, only when that webhook is about
 *   to send), hands the free send slots out round-robin over workspaces, their receivers and their
 *   webhooks, and claims that many per webhook (a lease per delivery, delivery-store.ts);
 * - sends run up to `concurrency` at once in all and `receiverConcurrency` per receiver (the origin
 *   of the URL); claims go in bulk (up to a cap's worth waiting per receiver, started as its slots
 *   free), so a slow receiver holds its own slots and its own few waiting deliveries only;
 * - a send that times out backs its receiver off (none of its deliveries is claimed meanwhile; they
 *   wait, not failed), doubling per consecutive timeout up to `maxBackoffMs`.
 *
 * A 2xx is a success and resets the webhook's failure count; anything else (an error status, a
 * timeout) is retried after the next delay of `retryDelaysMs`, until the attempts run out
 * (`retryDelaysMs.length + 1` in all); a receiver the address policy refuses (src/outbound/) fails
 * for good at once; 20 consecutive failures disable the webhook (the log line says why). Pending
 * deliveries are rows: a restart, even after kill -9, sends them (a lease held by a dead process
 * expires after `leaseMs`). Caps and backoffs are per process.
 *
 * @example
 * const d = createDispatcher({ deliveries, webhooks, clicks, now: Date.now, allowPrivate: false, log });
 * d.start(); d.nudge(); await d.close();
 */
import { setMaxListeners } from 'node:events';
import { DISABLE_AFTER_FAILURES, type DeliveryStore, type Recorded } from './delivery-store.js';
import type { WebhookStore } from './store.js';
import type { DeliveryRow } from './schema.js';
import { CLICK_BATCHES_PER_OPEN, type ClickExpander } from './click-expand.js';
import { createReceiverGate, planClaims, receiverOf, type Candidate } from './fairness.js';
import { createSendAgents, send, signedHeaders, SEND_TIMEOUT_MS, MAX_SOCKETS_PER_RECEIVER } from './send.js';
import { NO_TRACES, type Traces } from '../tracing/traces.js';
import { createLineLogger, toStderr } from '../log-line.js';

/** ≈ the published schedule, min(1 day, e^(2.5·n)) s: 12 s, 2.5 min, 30 min, 6 h, then daily; 10 attempts in all. */
export const DEFAULT_RETRY_DELAYS_MS = [12_000, 150_000, 1_800_000, 21_600_000, 86_400_000, 86_400_000, 86_400_000, 86_400_000, 86_400_000];

/** Settled deliveries are kept this long for `GET /webhooks/{id}/deliveries` and redelivery. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;
/** Click deliveries written per webhook at a time (click-expand.ts). */
const EXPAND_CHUNK = 200;

export interface DispatcherOptions {
  deliveries: DeliveryStore;
  webhooks: WebhookStore;
  /** Click batches to expand into deliveries. */
  clicks: ClickExpander;
  now: () => number;
  allowPrivate: boolean;
  retryDelaysMs?: readonly number[];
  /** Sends in flight at most (WEBHOOK_CONCURRENCY); default 64. */
  concurrency?: number;
  /** Sends in flight per receiver at most (WEBHOOK_RECEIVER_CONCURRENCY), and its kept-alive sockets; default 8. */
  receiverConcurrency?: number;
  /** One send's time limit (WEBHOOK_SEND_TIMEOUT_MS); default 10 s. */
  sendTimeoutMs?: number;
  /** A receiver's backoff after a first timeout (WEBHOOK_RECEIVER_BACKOFF_MS), doubling per consecutive one; default 10 s. */
  receiverBackoffMs?: number;
  /** The longest backoff; default 10 min. */
  maxBackoffMs?: number;
  /** Look for due deliveries (retries, other processes' fan-out) this often; default 1000 ms. */
  pollMs?: number;
  /** Longer than a send can take (WEBHOOK_LEASE_MS); default the send timeout + 50 s. */
  leaseMs?: number;
  log: DispatcherLog;
  /** A webhook was disabled (20 consecutive failures): whoever caches the enabled webhooks reloads. */
  onDisabled?: (webhookId: string) => void;
  /** A client span per attempt (`webhook.deliver`), whose `traceparent` the receiver gets. */
  traces?: Traces;
}

export type DispatcherLog = (level: 'warn' | 'error', msg: string, fields: Record<string, unknown>) => void;

/** The dispatcher's log lines (JSON, pino's levels, on stderr) at LOG_LEVEL `logLevel`. */
export function dispatcherLog(logLevel: string): DispatcherLog {
  const log = createLineLogger(logLevel, toStderr);
  return (level, msg, fields) => log(level, msg, fields);
}

export function createDispatcher(options: DispatcherOptions) {
  const { deliveries, webhooks, clicks, now, log } = options;
  const traces = options.traces ?? NO_TRACES;
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const concurrency = options.concurrency ?? 64;
  const receiverConcurrency = options.receiverConcurrency ?? MAX_SOCKETS_PER_RECEIVER;
  const sendTimeoutMs = options.sendTimeoutMs ?? SEND_TIMEOUT_MS;
  const pollMs = options.pollMs ?? 1000;
  const leaseMs = options.leaseMs ?? sendTimeoutMs + 50_000;
  const gate = createReceiverGate({
    cap: receiverConcurrency, backoffMs: options.receiverBackoffMs ?? 10_000, maxBackoffMs: Math.max(options.maxBackoffMs ?? 600_000, options.receiverBackoffMs ?? 0), now,
  });
  const abort = new AbortController();
  // Every send in flight listens on it (up to `concurrency`).
  setMaxListeners(0, abort.signal);
  // Connections kept alive per receiver for this dispatcher's life; closed at close().
  const agents = createSendAgents(options.allowPrivate, receiverConcurrency);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let lastPrune = 0;
  let turn = 0;
  const inFlight = new Set<Promise<void>>();
  // Claimed deliveries waiting for a free slot of their receiver. Claims go in bulk (up to a cap's
  // worth beyond the sends in flight, once a receiver has none waiting): a claim per send would be
  // a write transaction per delivery, shared with the click writer's lock on SQLite.
  const ready = new Map<string, DeliveryRow[]>();
  let readyCount = 0;
  /** What a pass may claim for a receiver: nothing while it is backed off or still has claimed deliveries waiting. */
  const allowance = (r: string) => (gate.backedOffUntil(r) !== null || ready.has(r) ? 0 : 2 * receiverConcurrency - gate.inFlight(r));

  // Who waits: read from the database when stale (a nudge, the poll timer), else kept up to date
  // by the claims themselves, so a pass started by a finished send costs one claim statement.
  let stale = true;
  let hooks = new Map<string, { workspaceId: string; receiver: string }>();
  let due = new Map<string, number>();
  let clickWork = new Set<string>();
  async function look(): Promise<void> {
    stale = false;
    // A page of batches at a time; a backlog (the dispatcher was down) a few pages per look.
    for (let pages = 0; pages < 10 && (await clicks.open()) === CLICK_BATCHES_PER_OPEN; pages++);
    hooks = new Map((await webhooks.enabledReceivers()).map((h) => [h.id, { workspaceId: h.workspace_id, receiver: receiverOf(h.url) }]));
    due = await deliveries.dueByWebhook(now());
    clickWork = await clicks.webhooksWithWork();
  }

  // Outcomes are written in batches: whatever finished while the previous batch was being written
  // goes in the next transaction (a group commit), so a busy dispatcher takes the SQLite write
  // lock a few times a second instead of once a send.
  let queued: { r: Recorded; done: (disabled: boolean) => void; fail: (err: unknown) => void }[] = [];
  let writing = false;
  async function writeQueued(): Promise<void> {
    writing = true;
    while (queued.length) {
      const batch = queued;
      queued = [];
      try {
        const disabled = await deliveries.record(batch.map((b) => b.r), now());
        batch.forEach((b, i) => b.done(disabled[i]!));
      } catch (err) {
        for (const b of batch) b.fail(err);
      }
    }
    writing = false;
  }
  function record(r: Recorded): Promise<boolean> {
    return new Promise((done, fail) => {
      queued.push({ r, done, fail });
      if (!writing) void writeQueued();
    });
  }

  async function attempt(d: DeliveryRow, receiver: string): Promise<void> {
    let outcome: 'answered' | 'timedOut' | 'other' = 'other';
    const span = traces.start('webhook.deliver', {
      kind: 'client',
      attributes: {
        'waymark.workspace_id': d.workspace_id, 'waymark.webhook.id': d.webhook_id, 'waymark.webhook.delivery_id': d.id,
        'waymark.webhook.event_id': d.event_id, 'waymark.webhook.attempt': Number(d.attempts), 'server.address': receiver,
      },
    });
    try {
      // Read at send time: a PATCHed url or secret applies to pending deliveries too.
      const hook = await webhooks.find(d.workspace_id, d.webhook_id);
      if (!hook) return;
      const headers = signedHeaders(hook.secret, d.event_id, d.body, now());
      const traceparent = span.traceparent;
      if (traceparent) headers.traceparent = traceparent;
      const result = await send(hook.url, d.body, headers, { allowPrivate: options.allowPrivate, signal: abort.signal, agents, timeoutMs: sendTimeoutMs });
      span.set({ 'http.request.method': 'POST', 'http.response.status_code': result.statusCode ?? undefined, 'waymark.webhook.latency_ms': result.latencyMs, 'waymark.webhook.timed_out': result.timedOut, 'waymark.webhook.refused': result.refused });
      if (result.error !== null) span.fail(new Error(result.error));
      if (abort.signal.aborted) return void (await record({ kind: 'release', delivery: d }));
      outcome = result.statusCode !== null ? 'answered' : result.timedOut ? 'timedOut' : 'other';
      if (result.error === null) return void (await record({ kind: 'success', delivery: d, outcome: result }));
      const attempts = Number(d.attempts);
      // A receiver the address policy refuses fails for good: its address will not change its nature.
      const retryAt = !result.refused && attempts <= delays.length ? now() + delays[attempts - 1]! : null;
      if (await record({ kind: 'failure', delivery: d, outcome: result, retryAt })) {
        log('warn', 'webhook disabled after consecutive failed deliveries; PATCH it to enable it again', {
          webhookId: hook.id, workspaceId: hook.workspace_id, failures: DISABLE_AFTER_FAILURES, lastError: result.error,
        });
        options.onDisabled?.(hook.id);
      }
    } catch (err) {
      span.fail(err);
      throw err;
    } finally {
      span.end();
      gate.end(receiver, outcome);
    }
  }

  /** Claims what the free slots allow, fairly, and starts those sends; again while it finds work. */
  async function pass(): Promise<void> {
    if (now() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now();
      await deliveries.prune(now() - DELIVERY_RETENTION_MS);
    }
    // `closed` before each claim: a claim after close would lease again the deliveries the sends
    // abandoned at close just put back, keeping them from the next start for a lease.
    while (!closed) {
      if (stale) await look();
      const slots = concurrency - inFlight.size - readyCount;
      if (slots <= 0) return;
      const candidates: Candidate[] = [];
      for (const [id, h] of hooks) {
        const n = (due.get(id) ?? 0) + (clickWork.has(id) ? Infinity : 0);
        if (n > 0) candidates.push({ webhookId: id, workspaceId: h.workspaceId, receiver: h.receiver, available: n });
      }
      const plan = planClaims(candidates, { slots, spare: allowance, turn: turn++ });
      if (!plan.size) return;
      // Click work becomes deliveries only for the webhooks about to send, a chunk at a time.
      const t = now();
      for (const [id, n] of plan) {
        if ((due.get(id) ?? 0) >= n || !clickWork.has(id)) continue;
        const written = await clicks.expand(id, t, Math.max(EXPAND_CHUNK, n));
        if (written) due.set(id, (due.get(id) ?? 0) + written);
        else clickWork.delete(id);
      }
      if (closed) return;
      const claimed = await deliveries.claim(now(), leaseMs, plan);
      const got = new Map<string, number>();
      for (const d of claimed) got.set(d.webhook_id, (got.get(d.webhook_id) ?? 0) + 1);
      // Fewer than asked: the webhook has none due left (or another process took them, or it was
      // disabled meanwhile); none at all: leave it until the next look, so this loop ends.
      for (const [id, n] of plan) {
        const k = got.get(id) ?? 0;
        due.set(id, k < n ? 0 : Math.max(0, (due.get(id) ?? 0) - n));
        if (k === 0) clickWork.delete(id);
      }
      // Closed while claiming: put them back unsent, as the sends in flight are.
      if (closed) return void (await Promise.all(claimed.map((d) => record({ kind: 'release', delivery: d }))));
      const touched = new Set<string>();
      for (const d of claimed) {
        const receiver = hooks.get(d.webhook_id)?.receiver ?? d.webhook_id;
        let q = ready.get(receiver);
        if (!q) ready.set(receiver, (q = []));
        q.push(d);
        readyCount++;
        touched.add(receiver);
      }
      for (const r of touched) drain(r);
    }
  }

  /** Starts the receiver's waiting deliveries while it has free slots. */
  function drain(receiver: string): void {
    const q = ready.get(receiver);
    while (q?.length && gate.spare(receiver) > 0 && !closed) {
      const d = q.shift()!;
      readyCount--;
      gate.begin(receiver);
      const p: Promise<void> = attempt(d, receiver)
        .catch((err) => log('error', 'webhook delivery not recorded; it is retried when its lease expires', { deliveryId: d.id, err: String((err as Error)?.message ?? err) }))
        .finally(() => {
          inFlight.delete(p);
          // Backed off by this send: what waits for the receiver goes back, unattempted.
          if (gate.backedOffUntil(receiver) !== null) release(receiver);
          drain(receiver);
          kick();
        });
      inFlight.add(p);
    }
    if (q && !q.length) ready.delete(receiver);
  }

  /** Puts a receiver's waiting deliveries back: due at once, their attempt not counted. */
  function release(receiver: string): Promise<unknown> {
    const q = ready.get(receiver) ?? [];
    ready.delete(receiver);
    readyCount -= q.length;
    return Promise.all(q.map((d) => record({ kind: 'release', delivery: d }).catch((err) => log('error', 'webhook delivery not put back; it is sent when its lease expires', { deliveryId: d.id, err: String((err as Error)?.message ?? err) }))));
  }

  function kick(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((err) => {
        stale = true;
        log('error', 'webhook dispatcher round failed; retrying', { err: String((err as Error)?.message ?? err) });
      })
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  }
  /** New work may be waiting (a nudge, the poll): read who waits again, then claim. */
  const refresh = (): void => {
    stale = true;
    kick();
  };

  return {
    start(): void {
      if (timer || closed) return;
      timer = setInterval(refresh, pollMs);
      timer.unref();
      refresh();
    },
    /** New deliveries or click batches were written by this process: send them now. */
    nudge: refresh,
    /** Resolves when no pass is running and no send is in flight (tests). */
    async idle(): Promise<void> {
      while (running || inFlight.size) await Promise.all([running, ...inFlight]);
    },
    /** Stops claiming; sends in flight are abandoned and due again at the next start. */
    async close(): Promise<void> {
      closed = true;
      if (timer) clearInterval(timer);
      abort.abort();
      while (running || inFlight.size) await Promise.all([running, ...inFlight]);
      await Promise.all([...ready.keys()].map(release));
      agents.destroy();
    },
  };
}
export type Dispatcher = ReturnType<typeof createDispatcher>;

/**
 * Sends due webhook deliveries, never on the redirect thread (on a worker thread of its own with a
 * connection of its own, dispatch-worker.ts; in process for an in-memory database): claims a batch
 * (delivery-store.ts: a lease per delivery), sends up to `concurrency` at a time (send.ts), records
 * each outcome. A 2xx is a success and resets the webhook's failure count; anything else (an
 * error status, a timeout, a refused address) is retried after the next delay of `retryDelaysMs`,
 * until the attempts run out (`retryDelaysMs.length + 1` in all); 20 consecutive failures disable
 * the webhook (the log line says why). Pending deliveries are rows: a restart, even after kill -9,
 * sends them (a lease held by a dead process expires after `leaseMs`).
 *
 * @example
 * const d = createDispatcher({ store, webhooks, now: Date.now, allowPrivate: false });
 * d.start(); d.nudge(); await d.close();
 */
import { setMaxListeners } from 'node:events';
import { DISABLE_AFTER_FAILURES, type DeliveryStore, type Recorded } from './delivery-store.js';
import type { WebhookStore } from './store.js';
import type { DeliveryRow } from './schema.js';
import { createSendAgents, send, signedHeaders, SEND_TIMEOUT_MS } from './send.js';

/** ≈ the published schedule, min(1 day, e^(2.5·n)) s: 12 s, 2.5 min, 30 min, 6 h, then daily; 10 attempts in all. */
export const DEFAULT_RETRY_DELAYS_MS = [12_000, 150_000, 1_800_000, 21_600_000, 86_400_000, 86_400_000, 86_400_000, 86_400_000, 86_400_000];

/** Settled deliveries are kept this long for `GET /webhooks/{id}/deliveries` and redelivery. */
export const DELIVERY_RETENTION_MS = 30 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

export interface DispatcherOptions {
  deliveries: DeliveryStore;
  webhooks: WebhookStore;
  now: () => number;
  allowPrivate: boolean;
  retryDelaysMs?: readonly number[];
  /** Sends in flight at most; default 16. */
  concurrency?: number;
  /** Look for due deliveries (retries, other processes' fan-out) this often; default 1000 ms. */
  pollMs?: number;
  /** Longer than a send can take (WEBHOOK_LEASE_MS); default SEND_TIMEOUT_MS + 50 s. */
  leaseMs?: number;
  log: DispatcherLog;
  /** A webhook was disabled (20 consecutive failures): whoever caches the enabled webhooks reloads. */
  onDisabled?: (webhookId: string) => void;
}

export type DispatcherLog = (level: 'warn' | 'error', msg: string, fields: Record<string, unknown>) => void;

/** The dispatcher's log lines (JSON, pino's levels, on stderr) at LOG_LEVEL `logLevel`. */
export function dispatcherLog(logLevel: string): DispatcherLog {
  return (level, msg, fields) => {
    if (logLevel === 'silent' || (level === 'warn' && ['fatal', 'error'].includes(logLevel))) return;
    console.error(JSON.stringify({ level: level === 'warn' ? 40 : 50, time: Date.now(), msg, ...fields }));
  };
}

export function createDispatcher(options: DispatcherOptions) {
  const { deliveries, webhooks, now, log } = options;
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const concurrency = options.concurrency ?? 16;
  const pollMs = options.pollMs ?? 1000;
  const leaseMs = options.leaseMs ?? SEND_TIMEOUT_MS + 50_000;
  const abort = new AbortController();
  // Every send in flight listens on it (up to `concurrency`).
  setMaxListeners(0, abort.signal);
  // Connections kept alive per receiver for this dispatcher's life; closed at close().
  const agents = createSendAgents(options.allowPrivate);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  let lastPrune = 0;

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

  async function attempt(d: DeliveryRow): Promise<void> {
    // Read at send time: a PATCHed url or secret applies to pending deliveries too.
    const hook = await webhooks.find(d.workspace_id, d.webhook_id);
    if (!hook) return;
    const result = await send(hook.url, d.body, signedHeaders(hook.secret, d.event_id, d.body, now()), { allowPrivate: options.allowPrivate, signal: abort.signal, agents });
    if (abort.signal.aborted) return void (await record({ kind: 'release', delivery: d }));
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
  }

  async function round(): Promise<void> {
    if (now() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now();
      await deliveries.prune(now() - DELIVERY_RETENTION_MS);
    }
    // `closed` before each claim: a claim after close would lease again the deliveries the sends
    // abandoned at close just put back, keeping them from the next start for a lease.
    while (!closed) {
      const claimed = await deliveries.claim(now(), leaseMs, concurrency);
      if (!claimed.length) return;
      // Closed while claiming: put them back unsent, as the sends in flight are.
      if (closed) return void (await Promise.all(claimed.map((d) => record({ kind: 'release', delivery: d }))));
      let next = 0;
      const worker = async () => {
        while (next < claimed.length && !closed) {
          const d = claimed[next++]!;
          await attempt(d).catch((err) => log('error', 'webhook delivery not recorded; it is retried when its lease expires', { deliveryId: d.id, err: String((err as Error)?.message ?? err) }));
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    }
  }

  function kick(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch((err) => log('error', 'webhook dispatcher round failed; retrying', { err: String((err as Error)?.message ?? err) }))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  return {
    start(): void {
      if (timer || closed) return;
      timer = setInterval(kick, pollMs);
      timer.unref();
      kick();
    },
    /** New deliveries were written by this process: send them now. */
    nudge: kick,
    /** Resolves when no round is running (tests). */
    async idle(): Promise<void> {
      while (running) await running;
    },
    /** Stops claiming; sends in flight are abandoned and due again at the next start. */
    async close(): Promise<void> {
      closed = true;
      if (timer) clearInterval(timer);
      abort.abort();
      while (running) await running;
      agents.destroy();
    },
  };
}
export type Dispatcher = ReturnType<typeof createDispatcher>;

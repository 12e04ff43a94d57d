/**
 * The webhook dispatcher (dispatcher.ts) on a thread of its own, with a connection of its own:
 * better-sqlite3 is synchronous, and on a SQLite file every claim and every recorded outcome
 * waits for the write lock the click writer holds for whole batches; on the redirect thread that
 * wait stalled redirects (BENCHMARKS.md, Webhooks). Here only this thread waits; the HTTP sends'
 * CPU (connections, signatures, JSON) leaves the redirect thread too, on PostgreSQL as well.
 *
 * Messages in: `{ type: 'nudge' }` (deliveries were written: claim now), `{ type: 'close' }`
 * (abandon the sends in flight, make them due again, close the connection). Out:
 * `{ type: 'disabled', webhookId }` (20 consecutive failures: the main thread reloads its webhook
 * cache), `{ type: 'closed' }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { lowerThreadPriority } from '../thread-priority.js';
import { createWebhookStore } from './store.js';
import { createDeliveryStore, type DeliveryStore } from './delivery-store.js';
import { createDispatcher, dispatcherLog } from './dispatcher.js';
import { createClickExpander, type ClickExpander } from './click-expand.js';
import type { LinkUrlSettings } from '../links/response.js';
import type { TracingSettings } from '../tracing/model.js';
import { startTraces } from '../tracing/traces.js';

export interface DispatchWorkerData {
  url: string;
  /** PostgreSQL schema of the app's connection, if any. */
  pgSchema?: string;
  /** Nice value of this thread (CLICK_WRITER_NICE): redirects take the core first, deliveries catch up behind. */
  nice?: number;
  allowPrivate: boolean;
  retryDelaysMs?: number[];
  pollMs: number;
  leaseMs: number;
  concurrency: number;
  receiverConcurrency: number;
  sendTimeoutMs: number;
  receiverBackoffMs: number;
  /** How the links in `link.clicked` deliveries are spelled (the links API's settings). */
  linkSettings: LinkUrlSettings;
  /** Mail the owners of a failing webhook (SMTP_URL set). */
  mailAlerts?: boolean;
  logLevel: string;
  /** OTEL_*: a span per delivery attempt from this thread; undefined: none. */
  tracing?: TracingSettings;
}

export type DispatchRequest = { type: 'nudge' } | { type: 'close' };
export type DispatchReply = { type: 'disabled'; webhookId: string } | { type: 'closed' };

/**
 * SQLite: the longest wait for a lock inside one call. A thread terminated while SQLite waits
 * aborts the process (Node 20, better-sqlite3; events/log/service.ts), so longer waits happen between
 * calls (whileBusy), where a close is heard.
 */
const SQLITE_BUSY_WAIT_MS = 100;
const BUSY_RETRY_MS = 10;
/** After a close, how long a write refused as busy is still tried (the main thread waits 10 s). */
const CLOSING_TRIES_MS = 3_000;

const port = parentPort!;
const data = workerData as DispatchWorkerData;
lowerThreadPriority(data.nice ?? 0);
// Checkpoints run on the app's checkpoint thread (db/checkpointer.ts).
const database = await openDatabase(data.url, { migrate: false, pgSchema: data.pgSchema, poolSize: 4, walAutocheckpoint: 0, busyTimeoutMs: SQLITE_BUSY_WAIT_MS });

let giveUpAt = Infinity;
/** Runs `fn` again while SQLite reports the database locked (the click writer's batch, an API write). */
async function whileBusy<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!database.dialect.isBusy(err) || Date.now() > giveUpAt) throw err;
      await new Promise((r) => setTimeout(r, BUSY_RETRY_MS));
    }
  }
}

const store = createDeliveryStore(database.db, { skipLocked: !database.capabilities.singleWriter, mailAlerts: data.mailAlerts });
// Each write is one statement or one transaction, rolled back whole when refused: safe to repeat.
const deliveries: DeliveryStore = {
  ...store,
  claim: (...a) => whileBusy(() => store.claim(...a)),
  record: (...a) => whileBusy(() => store.record(...a)),
  prune: (...a) => whileBusy(() => store.prune(...a)),
};
const traces = await startTraces(data.tracing, 'webhook-dispatch');
const expander = createClickExpander({ db: database.db, settings: data.linkSettings });
// Both write with compare-and-set in one transaction: safe to repeat.
const clicks: ClickExpander = {
  ...expander,
  open: () => whileBusy(() => expander.open()),
  expand: (...a) => whileBusy(() => expander.expand(...a)),
};
const dispatcher = createDispatcher({
  deliveries,
  webhooks: createWebhookStore(database.db),
  clicks,
  now: Date.now,
  allowPrivate: data.allowPrivate,
  retryDelaysMs: data.retryDelaysMs,
  pollMs: data.pollMs,
  leaseMs: data.leaseMs,
  concurrency: data.concurrency,
  receiverConcurrency: data.receiverConcurrency,
  sendTimeoutMs: data.sendTimeoutMs,
  receiverBackoffMs: data.receiverBackoffMs,
  log: dispatcherLog(data.logLevel),
  onDisabled: (webhookId) => port.postMessage({ type: 'disabled', webhookId } satisfies DispatchReply),
  traces,
});
dispatcher.start();

port.on('message', (msg: DispatchRequest) => {
  if (msg.type === 'nudge') return dispatcher.nudge();
  giveUpAt = Date.now() + CLOSING_TRIES_MS;
  void dispatcher
    .close()
    .then(() => database.close())
    .then(() => traces.close())
    .catch(() => undefined)
    .finally(() => port.postMessage({ type: 'closed' } satisfies DispatchReply));
});

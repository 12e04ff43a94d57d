/**
 * The click flush worker. better-sqlite3 is synchronous: a flush of 2,000 clicks plus the
 * analytics rollups holds the thread for tens of milliseconds, which on the main thread would
 * stall every redirect in that time; and the lookups that complete a click row (GeoIP with its
 * 130 MB of city data, user-agent traits, referer, UTM: click-enrich.ts) cost the redirect thread
 * too. So both run here, on the worker's own connection (SQLite in WAL mode lets the main thread
 * keep reading; on PostgreSQL a small pool of its own). The worker is a plain executor: the
 * batching, retries and the crash guarantee stay in click-writer.ts on the main thread.
 *
 * Messages in: `{ type: 'stage', batch, clicks }` (a slice of the next batch, encodeClicks form),
 * `{ type: 'write', id, batch, count }` (write the staged batch, which must hold `count` clicks),
 * `{ type: 'existing', id, ids }`, `{ type: 'settle', id }` (fold everything now), `{ type: 'ready', id }`
 * (answered once a batch can be written), `{ type: 'close', abandon }`
 * (`abandon`: the main thread spilled what was left, so stop at once: no final fold, no retries).
 * Messages out: `{ type: 'done', id }`, `{ type: 'failed', id, message, code }`,
 * `{ type: 'existing', id, found }`, `{ type: 'horizon', foldedBefore }` (at start and whenever
 * the fold watermark moves), `{ type: 'closed' }`. The worker also folds on a timer of its own.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { createSqlEventStore } from '../events/sql/store.js';
import { createLinkCounters } from '../links/counters.js';
import { NO_CLICK_SUBSCRIPTIONS, writeOutbox, type ClickSubscriptions } from '../events/outbox.js';
import { createClickAnnouncer } from './click-announce.js';
import { createClickFold, nextFoldDelay } from '../events/sql/click-fold.js';
import { decodeClicks, type RawClick } from './click-record.js';
import type { StoredEvent } from '../events/event-store.js';
import { createClickEnricher } from './click-enrich.js';
import { createGeoLocator } from './geo.js';
import { createUaClassifier } from './visitor.js';
import { lowerThreadPriority } from '../thread-priority.js';
import { sql } from 'kysely';
import type { VisitorIpMode } from '../visitor-ip.js';
import { createClickJournal, type JournaledBatch } from '../events/column/click-journal.js';

/** SQLite: the longest wait for a lock inside one call, and the pause between tries (whileBusy). */
const SQLITE_BUSY_WAIT_MS = 100;
const BUSY_RETRY_MS = 10;

/** What the main thread tells a new worker. */
export interface FlushWorkerData {
  url: string;
  /** PostgreSQL schema of the app's connection, if any. */
  pgSchema?: string;
  /** `GEOIP_DB`: a city .mmdb replacing the bundled data. */
  geoipDb?: string;
  /**
   * How often written clicks are folded into rollups and link counters while folds are cheap
   * (SQLite; click-fold.ts). Slow folds stretch the wait (nextFoldDelay).
   */
  foldIntervalMs: number;
  /**
   * Nice value for this thread (`CLICK_WRITER_NICE`, Linux). Below the redirect thread's, the
   * writer yields the core whenever a redirect is ready, and catches up in the gaps with fuller
   * batches and folds (the git history of BENCHMARKS.md, 2026-11-23). 0 or absent: unchanged.
   */
  nice?: number;
  /**
   * Whose clicks someone subscribes to (`link.clicked`) at start: each batch writes those clicks
   * to the outbox, and the webhook work of the clicks webhooks cover (`routes`), too
   * (click-announce.ts). Later changes arrive as `clicks` messages.
   */
  clicks?: ClickSubscriptions;
  /** `VISITOR_IP`: what stored clicks keep of the address (default `anonymized`). */
  visitorIp?: VisitorIpMode;
  /**
   * The column event store takes the clicks (events/column/click-journal.ts): batches are
   * committed to the click journal and handed over as CSV files in `dir`, which the main thread
   * appends to DuckDB and acknowledges (`stored` messages). Absent: the SQL event store.
   */
  column?: { dir: string };
}

export type WorkerRequest =
  | { type: 'stage'; batch: number; clicks: unknown[] }
  | { type: 'write'; id: number; batch: number; count: number }
  | { type: 'existing'; id: number; ids: string[] }
  /** Fold every written click now (tests, benchmarks: counters and rollups up to date). */
  | { type: 'settle'; id: number }
  /** Answer `done` once a batch can be written (the GeoIP data is loaded). */
  | { type: 'ready'; id: number }
  | { type: 'close'; abandon?: boolean }
  /** The click subscriptions changed (webhooks created, edited, disabled): applies from the next batch. */
  | { type: 'clicks'; clicks: ClickSubscriptions }
  /** Column mode: the column store holds these journal batches. */
  | { type: 'stored'; seqs: number[] };

export type WorkerReply =
  /** `batch`: column mode, the journal batch a `write` committed and its CSV file. */
  | { type: 'done'; id: number; batch?: JournaledBatch }
  | { type: 'failed'; id: number; message: string; code?: string }
  | { type: 'existing'; id: number; found: string[] }
  /** The fold watermark moved (sent before the reply of the write or settle that moved it). */
  | { type: 'horizon'; foldedBefore: number | null }
  | { type: 'closed' };

const port = parentPort!;

const { url, pgSchema, geoipDb, foldIntervalMs, nice, clicks, visitorIp, column } = workerData as FlushWorkerData;
lowerThreadPriority(nice ?? 0);
const geo = createGeoLocator({ dbPath: geoipDb, trustHeaders: false, onError: (err, context) => console.error(context, err) });
geo.start();
// The main thread migrated the database before starting us.
// Checkpoints run on the app's checkpoint thread (db/checkpointer.ts), not in this writer's commits.
const database = await openDatabase(url, { migrate: false, pgSchema, poolSize: 2, walAutocheckpoint: 0 });
// A thread waiting inside SQLite for a lock held elsewhere cannot be stopped, and one terminated
// while that call fails aborts the whole process (Node 20, better-sqlite3). So this connection
// waits at most 100 ms inside SQLite, and longer waits happen here, between calls (whileBusy),
// where a shutdown can reach the thread (flush-client.ts, close).
if (database.capabilities.singleWriter) await sql`pragma busy_timeout = ${sql.raw(String(SQLITE_BUSY_WAIT_MS))}`.execute(database.db);
// The same event store app.ts builds: events and rollups are written the one way.
const events = createSqlEventStore({ database });
const announcer = createClickAnnouncer({ subscriptions: clicks ?? NO_CLICK_SUBSCRIPTIONS, writeOutbox });
const enrich = createClickEnricher({ geo, classify: createUaClassifier(), ipMode: visitorIp ?? 'anonymized' });
const counters = createLinkCounters(database.dialect);
const announce = (trx: Parameters<typeof announcer.announce>[0], rows: readonly StoredEvent[]) => announcer.announce(trx, rows);

/** What this worker writes and folds through: the click journal (column mode) or the SQL store's click fold. */
function createBatchWriter() {
  if (column) {
    // The journal's folds add the link counters; the column store takes the batch files.
    const journal = createClickJournal({ db: database.db, counters, dir: column.dir, announce });
    return {
      journal,
      write: (rows: StoredEvent[]) => journal.write(rows),
      fold: async (_options?: { all?: boolean }): Promise<unknown> => journal.fold(),
      recover: async () => {
        await journal.recover();
        return null;
      },
      pending: () => journal.pending(),
      foldedBefore: (): number | null => null,
    };
  }
  // One writer per SQLite file folds a second's clicks (a few seconds' while busy) at a time;
  // PostgreSQL's processes each fold their batches as they write them (click-fold.ts).
  const sqlFold = createClickFold({ db: database.db, writer: events.writer, counters, mode: database.capabilities.singleWriter ? 'coalesced' : 'each', announce });
  return {
    journal: undefined,
    write: async (rows: StoredEvent[]) => void (await sqlFold.write(rows)),
    fold: (options?: { all?: boolean }): Promise<unknown> => sqlFold.fold(options),
    recover: () => sqlFold.recover(),
    pending: () => sqlFold.pending(),
    foldedBefore: () => sqlFold.foldedBefore(),
  };
}
const fold = createBatchWriter();
const journal = fold.journal;

let closing = false;
// Set by a `close` with `abandon`: stop retrying, the main thread has spilled those clicks.
let abandoning = false;

/** Runs `fn` again while SQLite reports the database locked (by an API write, a checkpoint, another process). */
async function whileBusy<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    // Once told to abandon, no new SQLite call: the main thread may terminate this thread any moment.
    if (abandoning) throw new Error('click writer closing');
    try {
      return await fn();
    } catch (err) {
      if (abandoning || !String((err as { code?: unknown })?.code ?? '').startsWith('SQLITE_BUSY')) throw err;
      // Through setImmediate: a timer due while SQLite held the thread runs in the same timers
      // phase, and messages (a `close`) would never be read between tries.
      await new Promise((r) => setTimeout(() => setImmediate(r), BUSY_RETRY_MS));
    }
  }
}

let horizon = await fold.recover();
const report = () => {
  const now = fold.foldedBefore();
  if (now === horizon || journal) return;
  horizon = now;
  port.postMessage({ type: 'horizon', foldedBefore: now } satisfies WorkerReply);
};
// Column mode has no watermark: the SQL store's analytics planner does not read these clicks.
if (!journal) port.postMessage({ type: 'horizon', foldedBefore: horizon } satisfies WorkerReply);

// Folds run on a timer that stretches while they are slow (nextFoldDelay): each one then takes
// more clicks for about the same work, so a busy writer spends less of its time folding.
let foldTimer: NodeJS.Timeout | undefined;
const scheduleFold = (delayMs: number) => {
  if (!closing) foldTimer = setTimeout(foldNow, delayMs);
};
async function foldNow(): Promise<void> {
  if (fold.pending() === 0) return scheduleFold(foldIntervalMs);
  const started = performance.now();
  try {
    await whileBusy(() => fold.fold());
    report();
  } catch (err) {
    console.error('waymark: folding clicks into rollups failed; retrying', err);
  }
  scheduleFold(nextFoldDelay(foldIntervalMs, performance.now() - started));
}
scheduleFold(foldIntervalMs);

// Clicks of the batch being received; a slice of another batch starts over (an abandoned batch).
let staged: { batch: number; clicks: RawClick[] } = { batch: 0, clicks: [] };

// One message at a time: the main thread sends the next batch only after this one's reply.
port.on('message', async (msg: WorkerRequest) => {
  if (msg.type === 'stage') {
    if (staged.batch !== msg.batch) staged = { batch: msg.batch, clicks: [] };
    for (const click of decodeClicks(msg.clicks)) staged.clicks.push(click);
    return;
  }
  if (msg.type === 'clicks') {
    announcer.set(msg.clicks);
    return;
  }
  if (msg.type === 'stored') {
    journal?.stored(msg.seqs);
    return;
  }
  if (msg.type === 'close') {
    closing = true;
    clearTimeout(foldTimer);
    if (msg.abandon) {
      // Between SQLite calls now: safe to terminate. Uncommitted work is rolled back when the
      // thread's connections close with it.
      abandoning = true;
      port.postMessage({ type: 'closed' } satisfies WorkerReply);
      return;
    }
    // What is not folded now (an error, or the main thread's wait ran out) is folded by the next
    // start (recover).
    await whileBusy(() => fold.fold({ all: true }))
      .then(report)
      .catch((err) => console.error('waymark: folding clicks at shutdown failed; the next start will', err));
    await database.close().catch(() => undefined);
    port.postMessage({ type: 'closed' } satisfies WorkerReply);
    return;
  }
  try {
    if (msg.type === 'write') {
      const clicks = staged.batch === msg.batch ? staged.clicks : [];
      staged = { batch: 0, clicks: [] };
      // A worker started after part of the batch was sent has only the rest: refuse, so the
      // main thread sends the whole batch again.
      if (clicks.length !== msg.count) throw new Error(`click batch ${msg.batch} incomplete: ${clicks.length} of ${msg.count} clicks received`);
      // Locations need the GeoIP data, read once when the worker starts (~0.6 s).
      await geo.ready();
      const rows = clicks.map(enrich);
      const batch = await whileBusy(() => fold.write(rows));
      report();
      port.postMessage({ type: 'done', id: msg.id, ...(batch ? { batch } : {}) } satisfies WorkerReply);
    } else if (msg.type === 'ready') {
      await geo.ready();
      port.postMessage({ type: 'done', id: msg.id } satisfies WorkerReply);
    } else if (msg.type === 'settle') {
      await whileBusy(() => fold.fold({ all: true }));
      report();
      port.postMessage({ type: 'done', id: msg.id } satisfies WorkerReply);
    } else {
      const found = journal ? await journal.existingClickIds(msg.ids) : await events.existingClickIds(msg.ids);
      port.postMessage({ type: 'existing', id: msg.id, found } satisfies WorkerReply);
    }
  } catch (err) {
    const e = err as { message?: string; code?: string };
    port.postMessage({ type: 'failed', id: msg.id, message: String(e?.message ?? err), code: e?.code } satisfies WorkerReply);
  }
});

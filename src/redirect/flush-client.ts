/**
 * The main thread's side of the flush worker: a ClickSink whose writes run on flush-worker.ts.
 * A worker that dies (or fails to start) fails the calls in flight; the click writer keeps those
 * rows and retries, and the next call starts a new worker.
 *
 * @example
 * const sink = createWorkerSink({ url: database.url });
 * await sink.write(rows); await sink.close();
 */
import { Worker } from 'node:worker_threads';
import type { ClickSink } from './click-writer.js';
import type { ClickSubscriptions } from '../outbox/outbox.js';
import type { FlushWorkerData, WorkerReply, WorkerRequest } from './flush-worker.js';
import { encodeClicks } from './click-record.js';

/**
 * Starts flush-worker: the built .js directly; under tsx (tests, `npm run dev`) through a bootstrap
 * that registers tsx inside the worker, because Node 20 does not pass the main thread's module
 * hooks on to workers.
 */
function startWorker(workerData: FlushWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./flush-worker.js', import.meta.url), { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./flush-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** Clicks per staging message: each copy holds the event loop well under a millisecond. */
const STAGE_ROWS = 128;

interface Pending {
  resolve(value: WorkerReply): void;
  reject(err: Error): void;
}

export interface WorkerSinkOptions {
  onError?: (err: unknown, context: string) => void;
  /** The worker's fold watermark, whenever it moves (click-fold.ts). */
  onHorizon?: (foldedBefore: number | null) => void;
}

export function createWorkerSink(data: FlushWorkerData, options: WorkerSinkOptions = {}): ClickSink & { setClicks(clicks: ClickSubscriptions): void; stored(seqs: readonly number[]): void } {
  const { onError } = options;
  let clicks = data.clicks;
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  // After close() no worker starts again: one started by a write still staging at shutdown would
  // open the database while the process exits.
  let closed = false;
  const ensure = (): Worker => {
    if (worker) return worker;
    if (closed) throw new Error('click flush worker closed');
    const w = startWorker({ ...data, clicks });
    w.on('message', (reply: WorkerReply) => {
      if (reply.type === 'closed') return;
      if (reply.type === 'horizon') {
        options.onHorizon?.(reply.foldedBefore);
        return;
      }
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (pending.size === 0) w.unref();
      if (reply.type === 'failed') p.reject(Object.assign(new Error(reply.message), { code: reply.code }));
      else p.resolve(reply);
    });
    w.on('error', (err) => {
      onError?.(err, 'click flush worker failed');
      if (worker === w) worker = null;
      failAll(err);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      failAll(new Error(`click flush worker exited (${code})`));
    });
    // An idle worker must not keep the process alive; one with a write in flight must (a shutdown
    // awaiting its last flush would otherwise see the event loop empty and exit before it lands).
    w.unref();
    worker = w;
    return w;
  };

  const call = (msg: WorkerRequest & { id: number }): Promise<WorkerReply> =>
    new Promise((resolve, reject) => {
      const w = ensure();
      pending.set(msg.id, { resolve, reject });
      w.ref();
      w.postMessage(msg);
    });

  let nextBatch = 1;
  return {
    /** Whose clicks go to the outbox from the next batch on (a worker started later gets them at start). */
    setClicks(next) {
      clicks = next;
      worker?.postMessage({ type: 'clicks', clicks: next } satisfies WorkerRequest);
    },
    async write(batch) {
      // Copying clicks into a message blocks this thread (2,000 event rows as objects held the
      // redirects for 4-10 ms, the p99 of bench/redirect). The clicks go over in slices with the
      // event loop free in between, and the write names the batch and its size, so a worker that
      // did not receive all of them (restarted meanwhile) refuses it and the writer retries.
      const batchId = nextBatch++;
      for (let i = 0; i < batch.length; i += STAGE_ROWS) {
        if (i > 0) await new Promise((r) => setImmediate(r));
        ensure().postMessage({ type: 'stage', batch: batchId, clicks: encodeClicks(batch.slice(i, i + STAGE_ROWS)) } satisfies WorkerRequest);
      }
      const reply = await call({ type: 'write', id: nextId++, batch: batchId, count: batch.length });
      return reply.type === 'done' ? reply.batch : undefined;
    },
    /** Column mode: the column store holds these journal batches (after close, the next start's catch-up appends them again). */
    stored(seqs) {
      if (closed) return;
      ensure().postMessage({ type: 'stored', seqs: [...seqs] } satisfies WorkerRequest);
    },
    async existingClickIds(ids) {
      const reply = await call({ type: 'existing', id: nextId++, ids: [...ids] });
      return reply.type === 'existing' ? reply.found : [];
    },
    async settle() {
      await call({ type: 'settle', id: nextId++ });
    },
    async start() {
      await call({ type: 'ready', id: nextId++ });
    },
    async close(closeOptions = {}) {
      closed = true;
      const w = worker;
      worker = null;
      if (!w) return;
      // Terminating a thread inside a SQLite call that then fails aborts the whole process (Node 20,
      // better-sqlite3): the worker is asked to stop and answers once it is between calls, which
      // its short busy timeout keeps brief (flush-worker.ts). Terminated without an answer only
      // after `timeoutMs` (5 s by default), e.g. a PostgreSQL query waiting on a lock.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => void w.terminate().then(() => resolve()), Math.min(5_000, closeOptions.timeoutMs ?? 5_000));
        w.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        w.on('message', (reply: WorkerReply) => {
          if (reply.type === 'closed') void w.terminate();
        });
        w.postMessage({ type: 'close', abandon: closeOptions.abandon === true } satisfies WorkerRequest);
      });
    },
  };
}

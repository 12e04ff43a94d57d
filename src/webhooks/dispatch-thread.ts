/**
 * The main thread's handle on the dispatcher's worker thread (dispatch-worker.ts): started on
 * the first `start` or `nudge` (an app with no webhook starts no thread), nudged by message,
 * closed by message with a bounded wait.
 *
 * @example
 * const d = startDispatcherThread({ url, allowPrivate: false, pollMs: 1000, leaseMs: 60_000, logLevel: 'info' }, { onDisabled, onError });
 * d.start(); d.nudge(); await d.close();
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../worker-thread.js';
import type { DispatchReply, DispatchRequest, DispatchWorkerData } from './dispatch-worker.js';

/** What the module needs of a dispatcher, in process (dispatcher.ts) or on its thread. */
export interface DispatcherHandle {
  start(): void;
  /** Deliveries were written: send them now. */
  nudge(): void;
  close(): Promise<void>;
}

/** Longest wait for the thread to put its sends back and close its connection. */
const CLOSE_WAIT_MS = 10_000;

export function startDispatcherThread(data: DispatchWorkerData, options: { onDisabled: (webhookId: string) => void; onError: (err: unknown) => void }): DispatcherHandle {
  let worker: Worker | null = null;
  let ended: Promise<void> = Promise.resolve();
  let closing = false;
  let onClosed: (() => void) | undefined;

  function start(): Worker | null {
    if (worker || closing) return worker;
    const w = startModuleWorker(new URL('./dispatch-worker.js', import.meta.url), { workerData: data });
    worker = w;
    w.unref();
    ended = new Promise((resolve) => w.once('exit', () => resolve()));
    w.on('message', (msg: DispatchReply) => {
      if (msg.type === 'disabled') options.onDisabled(msg.webhookId);
      else onClosed?.();
    });
    w.on('error', (err) => options.onError(err));
    w.once('exit', () => {
      // An unexpected end (an error above): the next nudge or start starts a new thread; pending
      // deliveries are rows, and leases of the dead thread expire.
      if (worker === w) worker = null;
    });
    return w;
  }

  return {
    start: () => void start(),
    nudge() {
      start()?.postMessage({ type: 'nudge' } satisfies DispatchRequest);
    },
    async close() {
      closing = true;
      const w = worker;
      if (!w) return;
      const closed = new Promise<void>((resolve) => (onClosed = resolve));
      w.postMessage({ type: 'close' } satisfies DispatchRequest);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, ended, new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
      await w.terminate();
    },
  };
}

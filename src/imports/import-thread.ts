/**
 * The main thread's side of the import thread (import-worker.ts): started with the first import,
 * kept while the app runs (an idle thread does not keep the process alive), started again by the
 * next import if it dies (the imports in flight fail). It answers `importCsv` like the service in
 * process: the body is handed over a chunk at a time as the thread asks for it, the links and
 * domains it changes are announced on the app's change bus, and an import whose signal aborts
 * (the client went away) stops there.
 *
 * @example
 * const thread = createImportThread({ url, nice: 10, config }, { bus, requestLimits });
 * const report = await thread.importCsv(workspace, request.raw, { dryRun: true, signal });
 * await thread.close();
 */
import type { Worker } from 'node:worker_threads';
import type { ChangeBus } from '../db/change-bus.js';
import { ApiError } from '../http/errors.js';
import { startModuleWorker } from '../worker-thread.js';
import type { ImportReply, ImportRequest, ImportWorkerData } from './import-worker.js';
import type { CsvImporter, ImportReport, ImportRequestLimits } from './service.js';
import type { LayoutName } from './layouts.js';

/** Longest wait for the thread to finish the batches it is writing and close its connection. */
const CLOSE_WAIT_MS = 10_000;
/** The most bytes of the body in one message (each is copied to the thread): a chunk of a buffered body can be megabytes. */
const MESSAGE_BYTES = 64 * 1024;

interface Pending {
  pull(): void;
  settle(reply: Extract<ImportReply, { type: 'done' | 'failed' }>): void;
}

export function createImportThread(data: ImportWorkerData, deps: { bus: ChangeBus; requestLimits: ImportRequestLimits }): CsvImporter & { close(): Promise<void> } {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  let onClosed: (() => void) | undefined;

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.settle({ type: 'failed', id: 0, error: { message: err.message } });
  };

  const ensure = (): Worker => {
    if (worker) return worker;
    const w = startModuleWorker(new URL('./import-worker.js', import.meta.url), { workerData: data });
    w.on('message', (reply: ImportReply) => {
      if (reply.type === 'changes') for (const change of reply.changes) deps.bus.publish(change);
      else if (reply.type === 'closed') onClosed?.();
      else if (reply.type === 'pull') pending.get(reply.id)?.pull();
      else pending.get(reply.id)?.settle(reply);
    });
    w.on('error', (err) => {
      if (worker === w) worker = null;
      failAll(err);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      failAll(new Error(`import thread exited (${code})`));
    });
    w.unref();
    worker = w;
    return w;
  };

  return {
    requestLimits: deps.requestLimits,

    importCsv(workspace, csv, options): Promise<ImportReport & { layout: LayoutName }> {
      const { signal, ...forwarded } = options;
      const id = nextId++;
      const w = ensure();
      const post = (msg: ImportRequest) => w.postMessage(msg);
      const body = csv[Symbol.asyncIterator]();
      /** What is left of a chunk larger than a message takes. */
      let rest: Buffer | undefined;
      let sourceError: unknown;
      return new Promise((resolve, reject) => {
        const onAbort = () => post({ type: 'abort', id });
        pending.set(id, {
          pull() {
            // Copied into the message: the reader may still hold views of the chunk's memory.
            const send = (chunk: Buffer) => {
              rest = chunk.length > MESSAGE_BYTES ? chunk.subarray(MESSAGE_BYTES) : undefined;
              post({ type: 'chunk', id, chunk: chunk.subarray(0, MESSAGE_BYTES) });
            };
            if (rest) return send(rest);
            body.next().then(
              (next) => {
                if (next.done) return post({ type: 'end', id });
                send(typeof next.value === 'string' ? Buffer.from(next.value) : next.value);
              },
              (err: unknown) => {
                sourceError = err;
                post({ type: 'fail', id });
              },
            );
          },
          settle(reply) {
            pending.delete(id);
            signal?.removeEventListener('abort', onAbort);
            if (pending.size === 0) w.unref();
            void body.return?.(undefined)?.catch(() => undefined);
            if (reply.type === 'done') return resolve(reply.report as ImportReport & { layout: LayoutName });
            // The body's own error (too large, malformed, the client gone) answers the request.
            if (sourceError) return reject(sourceError);
            const { code, message } = reply.error;
            reject(code ? new ApiError(code, message) : new Error(`import thread: ${message}`));
          },
        });
        w.ref(); // an import in flight keeps the process alive until it is answered
        post({ type: 'start', id, workspace, options: forwarded });
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
    },

    async close() {
      const w = worker;
      worker = null;
      if (!w) return;
      const closed = new Promise<void>((resolve) => (onClosed = resolve));
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage({ type: 'close' } satisfies ImportRequest);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, exited, new Promise<void>((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
      await w.terminate();
    },
  };
}

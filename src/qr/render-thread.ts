/**
 * The main thread's side of the QR render thread (render-worker.ts): started with the first
 * code, kept while the app runs, restarted by the next call if it dies (the calls in flight fail).
 * An idle thread does not keep the process alive.
 *
 * @example
 * const thread = createRenderThread({ nice: 10 });
 * const image = await thread.render({ text: 'https://go.example.com/abc', format: 'png', size: 600, level: 'L', margin: 2, fg: '#000000', bg: '#ffffff' });
 * await thread.close();
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../worker-thread.js';
import type { QrImage, QrOptions } from './draw.js';
import type { RenderReply, RenderRequest, RenderWorkerData } from './render-worker.js';

/** qrcode refused the input (more data than a version-40 code holds at that error correction level). */
export class QrRefusedError extends Error {}

export interface RenderThread {
  render(options: QrOptions): Promise<QrImage>;
  close(): Promise<void>;
}

export function createRenderThread(data: RenderWorkerData): RenderThread {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, { resolve(image: QrImage): void; reject(err: Error): void }>();

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  const ensure = (): Worker => {
    if (worker) return worker;
    const w = startModuleWorker(new URL('./render-worker.js', import.meta.url), { workerData: data });
    w.on('message', (reply: RenderReply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (pending.size === 0) w.unref();
      if ('refused' in reply) p.reject(new QrRefusedError(reply.refused));
      else p.resolve({ body: typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body.buffer, reply.body.byteOffset, reply.body.byteLength), contentType: reply.contentType });
    });
    w.on('error', (err) => {
      if (worker === w) worker = null;
      failAll(err);
    });
    w.on('exit', (code) => {
      if (worker === w) worker = null;
      failAll(new Error(`QR render thread exited (${code})`));
    });
    w.unref();
    worker = w;
    return w;
  };

  return {
    render(options) {
      return new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        const w = ensure();
        w.ref(); // a render in flight keeps the process alive until it is answered
        w.postMessage({ id, options } satisfies RenderRequest);
      });
    },
    async close() {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}

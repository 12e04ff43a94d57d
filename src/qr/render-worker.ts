/**
 * The QR render thread. Drawing a code is CPU work that grows with the URL's length (qrcode
 * builds the matrix and scores eight masks: ~0.3 ms for a short link, ~5 ms for a 2,000-character
 * URL, before any image), and the redirect thread must never wait behind it. Here it runs on a
 * thread of its own, at a lower priority (Linux nice, thread-priority.ts), so while the cores are
 * busy redirects run first and QR codes take the rest; and one thread bounds QR rendering to one
 * core whatever the traffic.
 *
 * Messages in: `{ id, options: QrOptions }`. Messages out: `{ id, body, contentType }`, or
 * `{ id, refused }` when qrcode refuses the input (more data than a version-40 code holds).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { drawQr, type QrOptions } from './draw.js';
import { lowerThreadPriority } from '../thread-priority.js';

export interface RenderWorkerData {
  /** Nice value of this thread (0: unchanged). */
  nice: number;
}
export interface RenderRequest {
  id: number;
  options: QrOptions;
}
export type RenderReply = { id: number; body: Uint8Array | string; contentType: 'image/png' | 'image/svg+xml' } | { id: number; refused: string };

lowerThreadPriority((workerData as RenderWorkerData).nice);

parentPort!.on('message', async ({ id, options }: RenderRequest) => {
  let reply: RenderReply;
  try {
    const image = await drawQr(options);
    reply = { id, body: image.body, contentType: image.contentType };
  } catch (err) {
    reply = { id, refused: (err as Error).message };
  }
  parentPort!.postMessage(reply);
});

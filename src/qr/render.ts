/**
 * QR code images, drawn on the QR render thread (render-worker.ts) so that no code, however
 * large or long its URL, holds the redirect thread. The same link's code is asked for again and
 * again (dashboards, emails), so finished images are kept in an LRU keyed by every parameter,
 * bounded by entries and by bytes, and concurrent requests for the same image share one drawing.
 *
 * @example
 * const qr = createQrRenderer();
 * const { body, contentType } = await qr.render({ text: 'https://go.example.com/abc?qr=1', format: 'png', size: 600, level: 'L', margin: 2, fg: '#000000', bg: '#ffffff' });
 * await qr.close();
 */
import { LRUCache } from 'lru-cache';
import type { QrImage, QrOptions } from './draw.js';
import { createRenderThread } from './render-thread.js';

export type { QrImage, QrOptions } from './draw.js';
export { QrRefusedError } from './render-thread.js';

export interface QrRendererOptions {
  /** Images kept (default 500). */
  maxEntries?: number;
  /** Bytes kept, images and their keys (default 16 MiB). A 2000 px PNG is 2-7 KB, an SVG up to ~60 KB. */
  maxBytes?: number;
  /** Nice value of the render thread (Linux; default 10, the click writer's; 0: unchanged). */
  nice?: number;
}

const DEFAULTS: Required<QrRendererOptions> = { maxEntries: 500, maxBytes: 16 * 1024 * 1024, nice: 10 };

export function createQrRenderer(options: QrRendererOptions = {}) {
  const { maxEntries, maxBytes, nice } = { ...DEFAULTS, ...options };
  const thread = createRenderThread({ nice });
  const cache = new LRUCache<string, QrImage>({
    max: maxEntries,
    maxSize: maxBytes,
    sizeCalculation: (image, key) => Math.max(1, key.length + (typeof image.body === 'string' ? Buffer.byteLength(image.body) : image.body.length)),
  });
  const inFlight = new Map<string, Promise<QrImage>>();
  return {
    /** The image, from the cache when the same parameters were drawn before. */
    render(o: QrOptions): Promise<QrImage> {
      const key = JSON.stringify([o.text, o.format, o.size, o.level, o.margin, o.fg, o.bg]);
      const cached = cache.get(key);
      if (cached) return Promise.resolve(cached);
      let pending = inFlight.get(key);
      if (!pending) {
        pending = thread
          .render(o)
          .then((image) => {
            cache.set(key, image);
            return image;
          })
          .finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      return pending;
    },
    /** Images and bytes held, for tests and benchmarks. */
    stats: () => ({ entries: cache.size, bytes: cache.calculatedSize }),
    /** Stops the render thread (the next render would start it again). */
    close: () => thread.close(),
  };
}
export type QrRenderer = ReturnType<typeof createQrRenderer>;

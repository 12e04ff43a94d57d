/**
 * QR code images: the module matrix from `qrcode`, then a PNG built from it (png.ts, compressed
 * off the event loop) or qrcode's SVG. The same link's code is asked for again and again
 * (dashboards, emails), so finished images are kept in an LRU keyed by every parameter, bounded
 * by entries and by bytes, and concurrent requests for the same image share one rendering.
 *
 * @example
 * const qr = createQrRenderer();
 * const { body, contentType } = await qr.render({ text: 'https://go.example.com/abc?qr=1', format: 'png', size: 600, level: 'L', margin: 2, fg: '#000000', bg: '#ffffff' });
 */
import QRCode from 'qrcode';
import { LRUCache } from 'lru-cache';
import { encodeQrPng } from './png.js';

export interface QrOptions {
  text: string;
  format: 'png' | 'svg';
  size: number;
  level: 'L' | 'M' | 'Q' | 'H';
  margin: number;
  fg: string;
  bg: string;
}

export interface QrImage {
  body: Buffer | string;
  contentType: 'image/png' | 'image/svg+xml';
}

export interface QrRendererOptions {
  /** Images kept (default 500). */
  maxEntries?: number;
  /** Bytes kept, images and their keys (default 16 MiB). A 2000 px PNG is 2-7 KB, an SVG up to ~60 KB. */
  maxBytes?: number;
}

const DEFAULTS: Required<QrRendererOptions> = { maxEntries: 500, maxBytes: 16 * 1024 * 1024 };

async function draw(o: QrOptions): Promise<QrImage> {
  if (o.format === 'svg') {
    const svg = await QRCode.toString(o.text, { errorCorrectionLevel: o.level, margin: o.margin, width: o.size, color: { dark: o.fg, light: o.bg }, type: 'svg' });
    return { body: svg, contentType: 'image/svg+xml' };
  }
  const { modules } = QRCode.create(o.text, { errorCorrectionLevel: o.level });
  return { body: await encodeQrPng(modules, { width: o.size, margin: o.margin, dark: o.fg, light: o.bg }), contentType: 'image/png' };
}

export function createQrRenderer(options: QrRendererOptions = {}) {
  const { maxEntries, maxBytes } = { ...DEFAULTS, ...options };
  const cache = new LRUCache<string, QrImage>({
    max: maxEntries,
    maxSize: maxBytes,
    sizeCalculation: (image, key) => Math.max(1, key.length + (typeof image.body === 'string' ? Buffer.byteLength(image.body) : image.body.length)),
  });
  const inFlight = new Map<string, Promise<QrImage>>();
  return {
    /** The image, from the cache when the same parameters were rendered before. */
    render(o: QrOptions): Promise<QrImage> {
      const key = JSON.stringify([o.text, o.format, o.size, o.level, o.margin, o.fg, o.bg]);
      const cached = cache.get(key);
      if (cached) return Promise.resolve(cached);
      let pending = inFlight.get(key);
      if (!pending) {
        pending = draw(o)
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
  };
}
export type QrRenderer = ReturnType<typeof createQrRenderer>;

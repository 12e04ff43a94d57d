/**
 * QR code images with `qrcode`: PNG (through pngjs) or SVG. Rendering a 600 px PNG costs a few
 * milliseconds of CPU, and the same link's code is asked for again and again (dashboards, emails),
 * so finished images are kept in a small LRU keyed by every parameter.
 *
 * @example
 * const qr = createQrRenderer();
 * const { body, contentType } = await qr.render({ text: 'https://go.example.com/abc?qr=1', format: 'png', size: 600, level: 'L', margin: 2, fg: '#000000', bg: '#ffffff' });
 */
import QRCode from 'qrcode';
import { LRUCache } from 'lru-cache';

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

export function createQrRenderer(maxEntries = 500) {
  const cache = new LRUCache<string, QrImage>({ max: maxEntries });
  return {
    /** The image, from the cache when the same parameters were rendered before. */
    async render(o: QrOptions): Promise<QrImage> {
      const key = JSON.stringify([o.text, o.format, o.size, o.level, o.margin, o.fg, o.bg]);
      const cached = cache.get(key);
      if (cached) return cached;
      const common = { errorCorrectionLevel: o.level, margin: o.margin, width: o.size, color: { dark: o.fg, light: o.bg } };
      const image: QrImage =
        o.format === 'svg'
          ? { body: await QRCode.toString(o.text, { ...common, type: 'svg' }), contentType: 'image/svg+xml' }
          : { body: await QRCode.toBuffer(o.text, { ...common, type: 'png' }), contentType: 'image/png' };
      cache.set(key, image);
      return image;
    },
  };
}
export type QrRenderer = ReturnType<typeof createQrRenderer>;

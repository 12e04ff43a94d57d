/**
 * One QR code image, drawn where it is called (the QR render thread, render-worker.ts): the module
 * matrix from `qrcode`, then a PNG built from it (png.ts) or qrcode's own SVG.
 *
 * @example
 * const { body, contentType } = await drawQr({ text: 'https://go.example.com/abc?qr=1', format: 'png', size: 600, level: 'L', margin: 2, fg: '#000000', bg: '#ffffff' });
 */
import QRCode from 'qrcode';
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

export async function drawQr(o: QrOptions): Promise<QrImage> {
  if (o.format === 'svg') {
    const svg = await QRCode.toString(o.text, { errorCorrectionLevel: o.level, margin: o.margin, width: o.size, color: { dark: o.fg, light: o.bg }, type: 'svg' });
    return { body: svg, contentType: 'image/svg+xml' };
  }
  const { modules } = QRCode.create(o.text, { errorCorrectionLevel: o.level });
  return { body: encodeQrPng(modules, { width: o.size, margin: o.margin, dark: o.fg, light: o.bg }), contentType: 'image/png' };
}

/**
 * The QR renderer as it was before issue 13: qrcode's own PNG path (RGBA drawn pixel by pixel in
 * JavaScript, then pngjs) and no cache in front of it, for the "before" side of bench/qr.ts.
 *
 * @example
 * modules.qr.renderer.render = renderWithQrcode;
 */
import QRCode from 'qrcode';
import type { QrImage, QrOptions } from '../../src/qr/render.js';

export async function renderWithQrcode(o: QrOptions): Promise<QrImage> {
  const common = { errorCorrectionLevel: o.level, margin: o.margin, width: o.size, color: { dark: o.fg, light: o.bg } };
  return o.format === 'svg'
    ? { body: await QRCode.toString(o.text, { ...common, type: 'svg' }), contentType: 'image/svg+xml' }
    : { body: await QRCode.toBuffer(o.text, { ...common, type: 'png' }), contentType: 'image/png' };
}

/**
 * A QR code as a PNG, built from the code's module matrix instead of pixel by pixel. The image is
 * a 1-bit palette PNG (two colours, alpha through tRNS): every pixel row is copied from the row
 * above while it shows the same module row, and 1 bit per pixel leaves zlib 1/32 of the bytes
 * that qrcode's RGBA image gives it. A 2000 px short-link code takes ~2 ms of CPU instead of
 * qrcode's ~280 ms (bench/qr.ts). It runs on the QR render thread (render-worker.ts), hence the
 * synchronous deflate: the thread pool's threads would compete with redirects at full priority.
 *
 * The geometry is qrcode's `width`/`margin` rule, computed with the same floating-point steps, so
 * the pixels are those of `QRCode.toBuffer(text, { width, margin, color })` (png.test.ts compares
 * them): the scale is `width / (modules + 2 × margin)` when that leaves at least one pixel per
 * module, else 4; the image is `floor((modules + 2 × margin) × scale)` pixels wide.
 *
 * @example
 * const qr = QRCode.create('https://go.example.com/abc?qr=1', { errorCorrectionLevel: 'L' });
 * const png = encodeQrPng(qr.modules, { width: 600, margin: 2, dark: '#000000', light: '#ffffff' });
 */
import { deflateSync } from 'node:zlib';

/** The part of qrcode's BitMatrix this encoder reads: `data[row * size + column]` is 1 for a dark module. */
export interface ModuleMatrix {
  size: number;
  data: Uint8Array;
}

export interface PngOptions {
  /** Requested width and height in pixels (qrcode's `width`). */
  width: number;
  /** Quiet zone in modules (qrcode's `margin`). */
  margin: number;
  /** `#rrggbb` or `#rrggbbaa`. */
  dark: string;
  light: string;
}

/**
 * zlib level 6: on a 2000 px code, level 9 took 4× the time (5.3 vs 1.35 ms) for an image 8 %
 * smaller; level 1 made it 3× larger.
 */
const DEFLATE_LEVEL = 6;

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32 as PNG chunks use it (zlib.crc32 needs Node 20.15; we support 20.11). */
function crc32(bytes: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 255]! ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** `#rrggbb[aa]` → [r, g, b, a]. */
function rgba(hex: string): [number, number, number, number] {
  const v = hex.replace(/^#/, '');
  const byte = (i: number) => parseInt(v.slice(i, i + 2), 16);
  return [byte(0), byte(2), byte(4), v.length === 8 ? byte(6) : 255];
}

/**
 * qrcode's pixel geometry (renderer/utils.js: getScale, getImageWidth, qrToImageData): the image
 * width and, per pixel column (or row), the module it shows, -1 in the quiet zone.
 */
export function pixelGeometry(modules: number, width: number, margin: number): { imageWidth: number; moduleAt: Int32Array } {
  const scale = width >= modules + margin * 2 ? width / (modules + margin * 2) : 4;
  const imageWidth = Math.floor((modules + margin * 2) * scale);
  const scaledMargin = margin * scale;
  const moduleAt = new Int32Array(imageWidth);
  for (let p = 0; p < imageWidth; p++) {
    moduleAt[p] = p >= scaledMargin && p < imageWidth - scaledMargin ? Math.floor((p - scaledMargin) / scale) : -1;
  }
  return { imageWidth, moduleAt };
}

/** The filtered scanlines (filter byte 0, then 1 bit per pixel; bit set = dark). */
function scanlines(matrix: ModuleMatrix, width: number, margin: number): { raw: Buffer; imageWidth: number } {
  const { size, data } = matrix;
  const { imageWidth, moduleAt } = pixelGeometry(size, width, margin);
  const rowBytes = 1 + Math.ceil(imageWidth / 8);
  const raw = Buffer.alloc(rowBytes * imageWidth);
  let previousModuleRow = -2;
  let previousOffset = 0;
  for (let y = 0; y < imageWidth; y++) {
    const moduleRow = moduleAt[y]!;
    const offset = y * rowBytes;
    if (moduleRow === previousModuleRow) {
      raw.copy(raw, offset, previousOffset, previousOffset + rowBytes);
      continue;
    }
    if (moduleRow >= 0) {
      // The same index expression as qrcode's, so even its edge cases land on the same module.
      for (let x = 0; x < imageWidth; x++) {
        const moduleColumn = moduleAt[x]!;
        if (moduleColumn >= 0 && data[moduleRow * size + moduleColumn]) raw[offset + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
      }
    }
    previousModuleRow = moduleRow;
    previousOffset = offset;
  }
  return { raw, imageWidth };
}

export function encodeQrPng(matrix: ModuleMatrix, options: PngOptions): Buffer {
  const { raw, imageWidth } = scanlines(matrix, options.width, options.margin);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(imageWidth, 0);
  header.writeUInt32BE(imageWidth, 4);
  header[8] = 1; // bit depth
  header[9] = 3; // colour type: palette
  const light = rgba(options.light);
  const dark = rgba(options.dark);
  // Palette index 0 is the light colour (a clear bit), 1 the dark one.
  const palette = Buffer.from([...light.slice(0, 3), ...dark.slice(0, 3)]);
  const alpha = light[3] < 255 || dark[3] < 255 ? [chunk('tRNS', Buffer.from([light[3], dark[3]]))] : [];
  const compressed = deflateSync(raw, { level: DEFLATE_LEVEL });
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('PLTE', palette), ...alpha, chunk('IDAT', compressed), chunk('IEND', Buffer.alloc(0))]);
}

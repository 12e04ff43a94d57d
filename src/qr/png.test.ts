import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import QRCode from 'qrcode';
import { encodeQrPng } from './png.js';
import type { QrOptions } from './draw.js';

// pngjs comes with qrcode (its PNG renderer); it has no type declarations of its own.
const { PNG } = createRequire(import.meta.url)('pngjs') as { PNG: { sync: { read(png: Buffer): { width: number; height: number; data: Buffer } } } };

const SHORT = 'https://wm.localhost:3000/spring-sale?qr=1';
const LONG = `https://example.com/landing?${'utm_campaign=spring&'.repeat(60)}x=1`;

type Case = { text: string; level: QrOptions['level']; width: number; margin: number; dark: string; light: string };

const cases: Case[] = [
  { text: SHORT, level: 'L', width: 600, margin: 2, dark: '#000000', light: '#ffffff' },
  { text: SHORT, level: 'H', width: 2000, margin: 2, dark: '#000000', light: '#ffffff' },
  { text: LONG, level: 'L', width: 2000, margin: 4, dark: '#123456', light: '#fedcba' },
  // Scales that are not whole numbers, an odd width, no quiet zone.
  { text: SHORT, level: 'M', width: 601, margin: 0, dark: '#000000', light: '#ffffff' },
  { text: SHORT, level: 'Q', width: 1999, margin: 3, dark: '#000000', light: '#ffffff' },
  { text: LONG, level: 'M', width: 333, margin: 1, dark: '#000000', light: '#ffffff' },
  // Narrower than one pixel per module: qrcode falls back to 4 px per module, a wider image.
  { text: LONG, level: 'H', width: 100, margin: 2, dark: '#000000', light: '#ffffff' },
  { text: SHORT, level: 'L', width: 32, margin: 50, dark: '#000000', light: '#ffffff' },
  // Colours with alpha (#rrggbbaa): palette plus tRNS.
  { text: SHORT, level: 'L', width: 256, margin: 2, dark: '#ff000080', light: '#00000000' },
  { text: SHORT, level: 'L', width: 256, margin: 2, dark: '#00ff00', light: '#ffffff10' },
];

test('the PNG has qrcode’s pixels for the same parameters (decoded and compared pixel by pixel)', async () => {
  for (const c of cases) {
    const label = JSON.stringify({ ...c, text: c.text.length });
    const theirs = PNG.sync.read(await QRCode.toBuffer(c.text, { errorCorrectionLevel: c.level, width: c.width, margin: c.margin, color: { dark: c.dark, light: c.light }, type: 'png' }));
    const png = encodeQrPng(QRCode.create(c.text, { errorCorrectionLevel: c.level }).modules, c);
    const ours = PNG.sync.read(png);
    assert.deepEqual([ours.width, ours.height], [theirs.width, theirs.height], label);
    assert.ok(ours.data.equals(theirs.data), `pixels differ: ${label}`);
    // A 1-bit palette image: IHDR bit depth 1, colour type 3.
    assert.deepEqual([png[24], png[25]], [1, 3], label);
  }
});

test('the requested size is the image size, as before (600 and 2000 px)', async () => {
  for (const width of [600, 2000, 1234]) {
    const png = encodeQrPng(QRCode.create(SHORT, { errorCorrectionLevel: 'L' }).modules, { width, margin: 2, dark: '#000000', light: '#ffffff' });
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [width, width]);
  }
});

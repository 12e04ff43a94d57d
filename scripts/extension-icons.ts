// Draws the browser extension's icons (extension/icons/icon-<size>.png) from one 16 × 16 pixel
// drawing, a map pin in the popup's accent colour on a transparent ground, with the PNG encoder
// the QR codes use (src/qr/png.ts: a module matrix, two colours). Run after changing the drawing:
//   npx tsx scripts/extension-icons.ts
import { mkdirSync, writeFileSync } from 'node:fs';
import { encodeQrPng } from '../src/qr/png.js';

const PIN = [
  '................',
  '.....######.....',
  '....########....',
  '...##########...',
  '..####....####..',
  '..###......###..',
  '..###......###..',
  '..####....####..',
  '...##########...',
  '...##########...',
  '....########....',
  '.....######.....',
  '......####......',
  '.......##.......',
  '................',
  '................',
];
export const ICON_SIZES = [16, 32, 48, 128];

const size = PIN.length;
const data = Uint8Array.from(PIN.join('').split('').map((c) => (c === '#' ? 1 : 0)));
mkdirSync('extension/icons', { recursive: true });
for (const width of ICON_SIZES) {
  const png = encodeQrPng({ size, data }, { width, margin: 0, dark: '#1f4fd1', light: '#ffffff00' });
  writeFileSync(`extension/icons/icon-${width}.png`, png);
  console.log(`extension/icons/icon-${width}.png: ${png.length} bytes`);
}

#!/usr/bin/env node
// `npm run extension:pack`: zips extension/ into dist/waymark-extension-<version>.zip, the file the
// Chrome Web Store takes (and `chrome://extensions` → "Load unpacked" after unzipping). The zip is
// written with fflate; every entry gets the same timestamp, so the same folder packs to the same
// bytes. Refuses a manifest that is not Manifest V3 or names a page or file that is missing.
//   node scripts/pack-extension.mjs [--out <file.zip>] [--dir <extension folder>]
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { zipSync } from 'fflate';

/** The zip format's earliest date, in local time as zip dates are; a fixed one keeps packs reproducible. */
const FIXED_TIME = new Date(1980, 0, 1);

/** Every file under `dir` (hidden ones and tests left out), as forward-slash paths relative to it. */
export function extensionFiles(dir) {
  const out = [];
  const walk = (at) => {
    for (const name of readdirSync(at).sort()) {
      if (name.startsWith('.') || name.endsWith('.test.js') || name.endsWith('.test.ts')) continue;
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return out;
}

/** The files a manifest names (pages, scripts, icons) that must be in the pack. */
export function referencedFiles(manifest) {
  const files = [manifest.action?.default_popup, manifest.options_ui?.page, manifest.options_page, manifest.background?.service_worker];
  for (const icons of [manifest.icons, manifest.action?.default_icon]) if (icons && typeof icons === 'object') files.push(...Object.values(icons));
  return files.filter((f) => typeof f === 'string');
}

/** Zips the folder; returns the zip's bytes and the manifest. Throws on a manifest the store would refuse. */
export function packExtension(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  if (manifest.manifest_version !== 3) throw new Error(`${dir}/manifest.json: manifest_version must be 3`);
  if (!/^\d+(\.\d+){0,3}$/.test(String(manifest.version))) throw new Error(`${dir}/manifest.json: version "${manifest.version}" is not 1 to 4 dot-separated integers`);
  const files = extensionFiles(dir);
  const missing = referencedFiles(manifest).filter((f) => !files.includes(f));
  if (missing.length) throw new Error(`${dir}/manifest.json names missing files: ${missing.join(', ')}`);
  const entries = Object.fromEntries(files.map((f) => [f, [readFileSync(join(dir, f)), { mtime: FIXED_TIME }]]));
  return { zip: zipSync(entries, { level: 9 }), manifest, files };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, dir: { type: 'string', default: 'extension' } } });
  if (!existsSync(join(values.dir, 'manifest.json'))) {
    console.error(`no manifest.json in ${values.dir}/`);
    process.exit(1);
  }
  const { zip, manifest, files } = packExtension(values.dir);
  const out = values.out ?? join('dist', `waymark-extension-${manifest.version}.zip`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, zip);
  console.log(`${out}: ${files.length} files, ${zip.length} bytes (Waymark extension ${manifest.version})`);
}

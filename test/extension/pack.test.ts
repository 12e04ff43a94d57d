/**
 * `npm run extension:pack` (scripts/pack-extension.mjs): the zip holds the manifest and every file
 * of extension/, byte for byte, packs reproducibly, and a broken manifest is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { unzipSync } from 'fflate';

const ROOT = process.cwd();
const pack = (await import(pathToFileURL(join(ROOT, 'scripts/pack-extension.mjs')).href)) as {
  packExtension(dir: string): { zip: Uint8Array; manifest: { version: string }; files: string[] };
};

test('npm run extension:pack writes a zip holding the manifest and every file of extension/', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-pack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const out = join(dir, 'waymark-extension.zip');
  const run = spawnSync('npm', ['run', '-s', 'extension:pack', '--', '--out', out], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /waymark-extension\.zip: \d+ files/);
  const entries = unzipSync(readFileSync(out));
  const manifest = JSON.parse(Buffer.from(entries['manifest.json']!).toString('utf8'));
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.name, 'Waymark');
  assert.equal(manifest.action.default_popup, 'popup.html');
  for (const icon of Object.values({ ...manifest.icons, ...manifest.action.default_icon }) as string[]) assert.ok(entries[icon], `${icon} (named by the manifest) is in the zip`);
  for (const name of ['popup.html', 'popup.js', 'options.html', 'options.js', 'styles.css', 'lib/api.js', 'lib/link-body.js', 'lib/settings.js', 'icons/icon-16.png', 'icons/icon-128.png']) {
    assert.ok(entries[name], `${name} is in the zip`);
    assert.deepEqual(Buffer.from(entries[name]!), readFileSync(join(ROOT, 'extension', name)), `${name} byte for byte`);
  }
  const walk = (d: string, prefix = ''): string[] => readdirSync(join(ROOT, 'extension', d), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]));
  assert.deepEqual(Object.keys(entries).sort(), walk('').sort(), 'nothing more, nothing less');
  // Packing again gives the same bytes (fixed timestamps, sorted entries).
  assert.deepEqual(Buffer.from(pack.packExtension(join(ROOT, 'extension')).zip), readFileSync(out));
});

test('a manifest that is not Manifest V3, or names a missing page, is refused', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-pack-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ext = join(dir, 'extension');
  cpSync(join(ROOT, 'extension'), ext, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(ext, 'manifest.json'), 'utf8'));
  writeFileSync(join(ext, 'manifest.json'), JSON.stringify({ ...manifest, manifest_version: 2 }));
  assert.throws(() => pack.packExtension(ext), /manifest_version must be 3/);
  writeFileSync(join(ext, 'manifest.json'), JSON.stringify(manifest));
  rmSync(join(ext, 'options.html'));
  assert.throws(() => pack.packExtension(ext), /names missing files: options\.html/);
});

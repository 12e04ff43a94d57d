#!/usr/bin/env node
// `npm start`'s build step: runs `npm run build` only when dist/ was not built from the sources
// as they are now. The TypeScript build took 15 s on a quiet machine (69 s under load) where the
// built server is ready in 1.5-3 s, and it ran on every start.
// "As they are now" is a SHA-256 of every file the build reads (src/ without tests and test
// support, the tsconfig files, package.json), written to dist/.build-hash after a build that
// succeeded. Content, not mtimes: a checkout or a copy that keeps old mtimes cannot fool it, and a
// touched file does not cause a rebuild. Hashing the ~500 source files takes ~30 ms.
//   node scripts/build-if-stale.mjs           build if stale
//   node scripts/build-if-stale.mjs --check   exit 0 when current, 1 when stale (builds nothing)
//   node scripts/build-if-stale.mjs --record  record the sources as built (the end of `npm run build`,
//                                             so the build `npm ci` runs counts as current)
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { spawnSync } from 'node:child_process';

export const HASH_FILE = join('dist', '.build-hash');

/** Files the build reads: what tsconfig.build.json includes, its tsconfig files and package.json. */
function inputs(root) {
  const out = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (relative(root, p).split(sep).join('/') !== 'src/test-support') walk(p);
      } else if (!entry.name.endsWith('.test.ts')) out.push(p);
    }
  };
  walk(join(root, 'src'));
  for (const f of ['tsconfig.json', 'tsconfig.build.json', 'package.json']) if (existsSync(join(root, f))) out.push(join(root, f));
  return out.map((p) => relative(root, p).split(sep).join('/')).sort();
}

/** The hash of the build's inputs under `root`: their paths and contents. */
export function sourceHash(root = '.') {
  const hash = createHash('sha256');
  for (const file of inputs(root)) hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
  return hash.digest('hex');
}

/** True when dist/ under `root` was built from the inputs as they are now. */
export function buildIsCurrent(root = '.') {
  const file = join(root, HASH_FILE);
  return existsSync(file) && readFileSync(file, 'utf8').trim() === sourceHash(root);
}

/**
 * Runs `build` when the build under `root` is stale, then records the hash (only if it succeeded).
 * Returns 'current' or 'built'; throws when the build fails.
 */
export function buildIfStale(root = '.', build = () => spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' }).status) {
  if (buildIsCurrent(root)) return 'current';
  // The hash of the inputs the build is about to read: a file changed during the build makes the
  // next start build again.
  const hash = sourceHash(root);
  const status = build();
  if (status !== 0) throw new Error(`the build failed (exit ${status})`);
  writeFileSync(join(root, HASH_FILE), `${hash}\n`);
  return 'built';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--check')) process.exit(buildIsCurrent() ? 0 : 1);
  if (process.argv.includes('--record')) {
    writeFileSync(HASH_FILE, `${sourceHash()}\n`);
    process.exit(0);
  }
  try {
    if (buildIfStale() === 'built') console.error('waymark: built dist/ from src/');
  } catch (err) {
    console.error(`waymark: ${err.message}`);
    process.exit(1);
  }
}

// Transpiles src/ and test/ to .test-build/ (same layout, inline source maps) with esbuild, the
// transpiler tsx itself uses, and copies every other file beside them (fixtures, CSS, JSON).
// Why: under tsx every module of a test process passes through loader hooks that Node 20 runs on
// another thread; a test file paid ~1.7 s of CPU for it before its first test, ~184 files twice
// in CI. Type checking stays with `npm run typecheck`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const TEST_BUILD_DIR = '.test-build';

function walk(dir, sources, assets) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, sources, assets);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.push(p);
    else assets.push(p);
  }
}

export async function buildTests() {
  const sources = [];
  const assets = [];
  for (const dir of ['src', 'test']) walk(dir, sources, assets);
  rmSync(TEST_BUILD_DIR, { recursive: true, force: true });
  await build({
    entryPoints: sources,
    outdir: TEST_BUILD_DIR,
    outbase: '.',
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    tsconfig: 'tsconfig.json',
    // Node 20 reads `import … with { type: 'json' }`; esbuild would drop the attribute for node20.
    supported: { 'import-attributes': true },
    logLevel: 'warning',
  });
  for (const a of assets) {
    mkdirSync(join(TEST_BUILD_DIR, dirname(a)), { recursive: true });
    copyFileSync(a, join(TEST_BUILD_DIR, a));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await buildTests();

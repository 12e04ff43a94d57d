// Transpiles src/ and test/ to .test-build/ (same layout, inline source maps) with esbuild, the
// transpiler tsx itself uses, and copies every other file beside them (fixtures, CSS, JSON).
// Why: under tsx every module of a test process passes through loader hooks that Node 20 runs on
// another thread; a test file paid ~1.7 s of CPU for it before its first test, ~184 files twice
// in CI. Type checking stays with `npm run typecheck`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export const TEST_BUILD_DIR = '.test-build';

function walk(dir, sources, assets) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, sources, assets);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.push(p);
    else assets.push(p);
  }
}

export function buildTests() {
  return transpile('.', ['src', 'test'], TEST_BUILD_DIR);
}

/**
 * Transpiles `dirs` of the tree at `root` into `root/outdir`, same layout, assets copied beside
 * (also used by test/upgrade/old-version.ts for an earlier version's `src/`).
 */
export async function transpile(root, dirs, outdir) {
  const sources = [];
  const assets = [];
  for (const dir of dirs) walk(join(root, dir), sources, assets);
  const out = join(root, outdir);
  rmSync(out, { recursive: true, force: true });
  await build({
    absWorkingDir: process.cwd(),
    entryPoints: sources,
    outdir: out,
    outbase: root,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    tsconfig: join(root, 'tsconfig.json'),
    // Node 20 reads `import … with { type: 'json' }`; esbuild would drop the attribute for node20.
    supported: { 'import-attributes': true },
    logLevel: 'warning',
  });
  for (const a of assets) {
    const to = join(out, relative(root, a));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(a, to);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await buildTests();

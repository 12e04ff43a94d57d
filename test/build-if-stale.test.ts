/**
 * `npm start` builds only when dist/ is stale (scripts/build-if-stale.mjs): a tree of its own
 * with a counting build stands in for tsc, so the decision is tested without a 15 s build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const script = pathToFileURL(resolve('scripts/build-if-stale.mjs')).href;
const { buildIfStale, buildIsCurrent } = (await import(script)) as {
  buildIfStale(root: string, build: () => number): 'current' | 'built';
  buildIsCurrent(root: string): boolean;
};

test('npm start builds when dist/ is missing or the sources changed, and not when they did not', () => {
  const root = mkdtempSync(join(tmpdir(), 'waymark-stale-'));
  try {
    mkdirSync(join(root, 'src', 'links'), { recursive: true });
    mkdirSync(join(root, 'src', 'test-support'), { recursive: true });
    writeFileSync(join(root, 'src', 'main.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'src', 'links', 'service.ts'), 'export const b = 2;\n');
    writeFileSync(join(root, 'tsconfig.json'), '{}');
    let builds = 0;
    const build = () => {
      builds += 1;
      mkdirSync(join(root, 'dist'), { recursive: true });
      return 0;
    };
    assert.equal(buildIfStale(root, build), 'built', 'no dist/: built');
    assert.equal(buildIfStale(root, build), 'current', 'nothing changed: not built again');
    assert.equal(builds, 1);

    // A touched file (a checkout, an editor saving unchanged) is not a change.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src', 'main.ts'), later, later);
    assert.equal(buildIfStale(root, build), 'current');
    // Tests and test support are not built: changing them rebuilds nothing.
    writeFileSync(join(root, 'src', 'links', 'service.test.ts'), 'test');
    writeFileSync(join(root, 'src', 'test-support', 'harness.ts'), 'export {};');
    assert.equal(buildIfStale(root, build), 'current');
    assert.equal(builds, 1);

    // A changed source, a new one, a changed tsconfig: built again.
    writeFileSync(join(root, 'src', 'links', 'service.ts'), 'export const b = 3;\n');
    assert.equal(buildIfStale(root, build), 'built');
    writeFileSync(join(root, 'src', 'links', 'new.ts'), 'export {};\n');
    assert.equal(buildIfStale(root, build), 'built');
    writeFileSync(join(root, 'tsconfig.json'), '{"compilerOptions":{}}');
    assert.equal(buildIfStale(root, build), 'built');
    assert.equal(builds, 4);
    assert.equal(buildIsCurrent(root), true);

    // A build that fails records nothing: the next start tries again.
    writeFileSync(join(root, 'src', 'main.ts'), 'export const a = ;\n');
    assert.throws(() => buildIfStale(root, () => 2), /the build failed \(exit 2\)/);
    assert.equal(buildIsCurrent(root), false);
    assert.equal(buildIfStale(root, build), 'built');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('npm start runs the staleness check, and npm run build records its sources (so the build npm ci runs counts)', () => {
  const scripts = (JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.match(scripts.start!, /^node scripts\/build-if-stale\.mjs && node --max-old-space-size=384 dist\/main\.js$/);
  assert.match(scripts.build!, /&& node scripts\/build-if-stale\.mjs --record$/);
});


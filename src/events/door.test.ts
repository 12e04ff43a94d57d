/**
 * The one door (index.ts): no file outside src/events/ (sources, tests, test/) imports a file
 * below it but index.ts. Benchmarks (bench/) measure the parts behind the door and may name them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join, normalize } from 'node:path';
import { sourceFiles } from '../test-support/source-files.js';

const EVENTS = 'src/events';
const DOOR = `${EVENTS}/index`;

/** Every module specifier a TypeScript file names: static imports, re-exports, `import()`. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  return found;
}

/** `file: specifier` for each import of `file` that reaches into src/events/ past its door. */
export function doorViolations(files: ReadonlyMap<string, string>): string[] {
  const wrong: string[] = [];
  for (const [file, text] of files) {
    if (file.startsWith(`${EVENTS}/`)) continue;
    for (const spec of specifiers(text)) {
      if (!spec.startsWith('.')) continue;
      const target = normalize(join(dirname(file), spec)).replace(/\.(js|ts|tsx)$/, '');
      if (target.startsWith(`${EVENTS}/`) && target !== DOOR) wrong.push(`${file}: ${spec}`);
    }
  }
  return wrong;
}

test('the check finds an import past the door, and lets the door and the inside through', () => {
  const files = new Map([
    ['src/tracking/a.ts', "import { createSqlEventStore } from '../events/sql/store.js';\nimport type { StoredEvent } from '../events/index.js';"],
    ['src/b.ts', "const m = await import('./events/log/start.js');\nexport { type RawClick } from './events/log/raw-click.js';"],
    ['src/events/sql/c.ts', "import { x } from '../rows.js';"],
    ['test/d.test.ts', "import { y } from '../src/events/index.js';\nimport { z } from '../src/eventsish/e.js';"],
  ]);
  assert.deepEqual(doorViolations(files), [
    'src/tracking/a.ts: ../events/sql/store.js',
    'src/b.ts: ./events/log/start.js',
    'src/b.ts: ./events/log/raw-click.js',
  ]);
});

test('no file outside src/events/ imports anything of it but its door', () => {
  const files = sourceFiles('src');
  sourceFiles('test', files);
  assert.ok(files.has(`${DOOR}.ts`), 'run from the repository root');
  assert.ok(files.size > 300, `read ${files.size} files`);
  assert.deepEqual(doorViolations(files), []);
});

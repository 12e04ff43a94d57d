/**
 * No import circles under src/ (docs/architecture.md: dependencies point one way). Every import a
 * file names counts — `import type`, re-exports and `import('…')` with a literal name too — since a
 * circle of types alone still ties two files that should be one, or one below the other.
 * TypeScript's own scanner reads the imports, so comments and template strings name none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { sourceFiles } from './test-support/source-files.js';

/** The files of the tree a relative specifier of `from` names (`./x.js` is `x.ts`, `x.tsx` or `x/index.ts`). */
function resolve(from: string, spec: string, files: ReadonlyMap<string, string>): string | undefined {
  const base = normalize(join(dirname(from), spec));
  const stem = base.replace(/\.(m?js|jsx|m?ts|tsx)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((c) => files.has(c));
}

/** Each file's imports of other files of the tree. */
export function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(file, fileName, files);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * The import circles of `graph`, one per group of files that reach each other (Tarjan's
 * depth-first search for strongly connected components), each as a path from its first file
 * (by name) back to it: `['a.ts', 'b.ts', 'a.ts']`. Empty when dependencies point one way.
 */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  // Iterative, so a deep chain of imports cannot overflow the call stack.
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: { file: string; next: number }[] = [];
    const enter = (file: string) => {
      index.set(file, index.size);
      low.set(file, index.get(file)!);
      stack.push(file);
      onStack.add(file);
      work.push({ file, next: 0 });
    };
    enter(root);
    while (work.length) {
      const top = work[work.length - 1]!;
      const edges = graph.get(top.file) ?? [];
      if (top.next < edges.length) {
        const to = edges[top.next++]!;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(top.file, Math.min(low.get(top.file)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.file;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.file)!));
      }
      if (low.get(top.file) !== index.get(top.file)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== top.file);
      const selfImport = group.length === 1 && edges.includes(top.file);
      if (group.length > 1 || selfImport) groups.push(group.sort());
    }
  }
  return groups.map((group) => circleThrough(group, graph)).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** A shortest path from the group's first file back to it, inside the group (breadth first). */
function circleThrough(group: readonly string[], graph: ReadonlyMap<string, readonly string[]>): string[] {
  const members = new Set(group);
  const start = group[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!;
    for (const to of graph.get(file) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const back = [file];
        while (back[back.length - 1] !== start) back.push(cameFrom.get(back[back.length - 1]!)!);
        return [...back.reverse(), start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, file);
        queue.push(to);
      }
    }
  }
  return [...group, start];
}

test('the check finds circles through type imports, re-exports and import(), and passes a one-way tree', () => {
  const files = new Map([
    ['src/a/writer.ts', "import { createBuffer } from './buffer.js';\n// import { nothing } from './comment.js';"],
    ['src/a/buffer.ts', "import type { Row } from './writer.js';"],
    ['src/b/page.tsx', "export { type Values } from '../c/index.js';"],
    ['src/c/index.ts', "const m = await import('../b/page.js');\nconst text = `import { x } from '../a/writer.js'`;"],
    ['src/d/self.ts', "import { me } from './self.js';"],
    ['src/e/top.ts', "import { a } from '../a/buffer.js';\nimport { z } from 'zod';\nimport { f } from './leaf.js';"],
    ['src/e/leaf.ts', "import { readFileSync } from 'node:fs';"],
  ]);
  const graph = importGraph(files);
  assert.deepEqual(graph.get('src/a/writer.ts'), ['src/a/buffer.ts']);
  assert.deepEqual(graph.get('src/c/index.ts'), ['src/b/page.tsx']);
  assert.deepEqual(importCircles(graph), [
    ['src/a/buffer.ts', 'src/a/writer.ts', 'src/a/buffer.ts'],
    ['src/b/page.tsx', 'src/c/index.ts', 'src/b/page.tsx'],
    ['src/d/self.ts', 'src/d/self.ts'],
  ]);

  const oneWay = new Map([...files].filter(([f]) => f.startsWith('src/e/')));
  oneWay.set('src/a/buffer.ts', "import type { Row } from '../e/leaf.js';");
  assert.deepEqual(importCircles(importGraph(oneWay)), []);
});

test('a circle of three files is named in import order', () => {
  const graph = new Map([
    ['x.ts', ['y.ts']],
    ['y.ts', ['z.ts', 'w.ts']],
    ['z.ts', ['x.ts']],
    ['w.ts', []],
  ]);
  assert.deepEqual(importCircles(graph), [['x.ts', 'y.ts', 'z.ts', 'x.ts']]);
});

test('no import circle under src/', () => {
  assert.ok(existsSync('src/app.ts'), 'run from the repository root');
  const files = sourceFiles('src');
  assert.ok(files.size > 300, `read ${files.size} files`);
  const graph = importGraph(files);
  const edges = [...graph.values()].reduce((n, to) => n + to.length, 0);
  assert.ok(edges > files.size, `found ${edges} imports`);
  assert.deepEqual(importCircles(graph).map((c) => c.join(' -> ')), []);
});

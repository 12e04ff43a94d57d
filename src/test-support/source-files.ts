/**
 * The TypeScript and module sources under a folder, by path from the repository root, for the
 * tests that check the structure (events/door.test.ts, import-circles.test.ts).
 *
 * @example
 * const files = sourceFiles('src'); // Map { 'src/app.ts' => '…', … }
 * sourceFiles('test', files);       // adds test/
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export function sourceFiles(dir: string, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.(ts|tsx|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.set(relative('.', p), readFileSync(p, 'utf8'));
  }
  return out;
}

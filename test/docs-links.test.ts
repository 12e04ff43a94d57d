/**
 * The README is a newcomer's page and docs/ holds the manuals: every relative link of README.md,
 * CHANGELOG.md and docs/*.md reaches a file that exists (and, with `#anchor`, a heading of it),
 * docs/README.md lists every page of docs/, and the README stays short.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, h] of withoutCode(readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(h!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

const pages = ['README.md', 'CHANGELOG.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];

test('every relative link of the README, the changelog and docs/ reaches an existing file and heading', () => {
  const broken: string[] = [];
  for (const page of pages) {
    for (const [, target] of withoutCode(readFileSync(page, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path ? normalize(join(dirname(page), path)) : page;
      if (!existsSync(file)) broken.push(`${page}: ${target} (no file ${file})`);
      else if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
    }
  }
  assert.deepEqual(broken, []);
});

test('docs/README.md lists every page of docs/, and the README links to it', () => {
  const index = readFileSync('docs/README.md', 'utf8');
  const missing = readdirSync('docs').filter((f) => f.endsWith('.md') && f !== 'README.md' && !index.includes(`](${f})`));
  assert.deepEqual(missing, []);
  assert.match(readFileSync('README.md', 'utf8'), /\]\(docs\/README\.md\)/);
});

test('the README is a newcomer\'s page: short, with the architecture a few screens down, not after the manuals', () => {
  const readme = readFileSync('README.md', 'utf8').split('\n');
  assert.ok(readme.length <= 300, `README.md has ${readme.length} lines`);
  const architecture = readme.findIndex((l) => l.includes('docs/architecture.md'));
  assert.ok(architecture >= 0 && architecture < 200, `docs/architecture.md first linked at line ${architecture + 1}`);
  for (const heading of ['## Quick start', '## Configuration', '## Documentation', '## Libraries and why']) assert.ok(readme.includes(heading), heading);
});

/**
 * `waymark import csv` and `waymark export …` on a database file: the same service as the API
 * (dry run, counts, rejected lines on stderr, exit codes), and an export that imports again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { runCli } from './index.js';

const fixture = (name: string) => join(import.meta.dirname, '..', 'imports', 'fixtures', name);

test('import csv (dry run, then for real, then again) and export links and events', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-cli-import-'));
  const env = { DATABASE_URL: `file:${join(dir, 'cli.db')}`, BASE_URL: 'http://localhost:3999' };
  const lines: string[] = [];
  const out = (l: string) => lines.push(l);
  try {
    assert.equal(await runCli(['workspaces', 'create', '--name', 'Acme', '--slug', 'acme'], out, env), 0);
    assert.equal(await runCli(['workspaces', 'create', '--name', 'Copy', '--slug', 'copy'], out, env), 0);

    lines.length = 0;
    assert.equal(await runCli(['import', 'csv', fixture('bitly.csv'), '-w', 'acme', '--dry-run'], out, env), 0);
    assert.match(lines[0]!, /^Dry run: would create 2, skipped 0, rejected 0 of 2 rows \(layout bitly/);
    assert.match(lines.join('\n'), /Domains to add \(unverified\): acme\.link/);

    lines.length = 0;
    assert.equal(await runCli(['import', 'csv', fixture('bitly.csv'), '-w', 'acme'], out, env), 0);
    assert.match(lines[0]!, /^Created 2, skipped 0, rejected 0 of 2 rows/);
    lines.length = 0;
    assert.equal(await runCli(['import', 'csv', fixture('bitly.csv'), '-w', 'acme'], out, env), 0);
    assert.match(lines[0]!, /^Created 0, skipped 2, rejected 0/);

    const mapped = join(dir, 'mapped.csv');
    writeFileSync(mapped, 'Where,Half\nhttps://example.com/ok,ok-1\nnot a url,bad-1\n');
    lines.length = 0;
    assert.equal(await runCli(['import', 'csv', mapped, '-w', 'acme', '--map', 'url=Where', '--map', 'key=Half'], out, env), 2, 'rejected rows: exit 2');
    assert.match(lines[0]!, /Created 1, skipped 0, rejected 1 of 2 rows/);
    assert.equal(await runCli(['import', 'csv', mapped, '-w', 'acme'], out, env), 1, 'no url column and no mapping: an error');

    const file = join(dir, 'links.csv');
    assert.equal(await runCli(['export', 'links', '-w', 'acme', '--query', 'sortOrder=asc', '--out', file], out, env), 0);
    const [header, ...rows] = parse(readFileSync(file, 'utf8')) as string[][];
    assert.deepEqual(rows.map((r) => r[header!.indexOf('key')]), ['spring24', 'docs', 'ok-1']);
    assert.equal(rows[0]![header!.indexOf('tags')], 'promo,seasonal');

    // The export is a file the import reads (Dub layout): into acme again, every row is already there;
    // into another workspace, every row is refused (keys are unique per domain across workspaces).
    lines.length = 0;
    assert.equal(await runCli(['import', 'csv', file, '-w', 'acme'], out, env), 0);
    assert.match(lines[0]!, /Created 0, skipped 3, rejected 0 of 3 rows \(layout dub/);
    lines.length = 0;
    assert.equal(await runCli(['import', 'csv', file, '-w', 'copy'], out, env), 2);
    assert.match(lines[0]!, /Created 0, skipped 0, rejected 3 of 3 rows/);

    const events = join(dir, 'events.ndjson');
    assert.equal(await runCli(['export', 'events', '-w', 'acme', '--format', 'ndjson', '--query', 'interval=all', '--out', events], out, env), 0);
    assert.equal(readFileSync(events, 'utf8'), '', 'no clicks yet');
    assert.equal(await runCli(['export', 'events', '-w', 'acme', '--event', 'views', '--out', events], out, env), 1);
    const analytics = join(dir, 'analytics.csv');
    assert.equal(await runCli(['export', 'analytics', '-w', 'acme', '--query', 'interval=all', '--out', analytics], out, env), 0);
    assert.equal(readFileSync(analytics, 'utf8'), 'clicks,leads,sales,saleAmount\n0,0,0,0\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

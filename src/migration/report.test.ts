import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { openRejectionReport, REPORT_COLUMNS } from './report.js';
import { createTally, describeSummary } from './tally.js';
import { cellOf } from '../exports/cells.js';

test('the report: a header and one row per rejection, through the exports\' cell function, as they come', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-report-'));
  try {
    const file = join(dir, 'rejected.csv');
    const report = openRejectionReport(file);
    const tally = createTally({ report });
    tally.reject({ kind: 'link', sourceId: 'link_1', item: 'dub.sh/spring', reason: 'the key is taken on wm.example.com by another workspace' });
    await new Promise((r) => setTimeout(r, 10));
    tally.reject({ kind: 'click', sourceId: 'c_1', item: 'dub.sh/x,"y"', reason: 'its link was not copied' });
    tally.reject({ kind: 'link', sourceId: '=HYPERLINK("http://evil")', item: 'dub.sh/=1+1', reason: 'the key is taken on wm.example.com by another workspace' });
    await report.close();
    const rows = parse(readFileSync(file, 'utf8')) as string[][];
    assert.deepEqual(rows[0], [...REPORT_COLUMNS]);
    assert.equal(rows.length, 4);
    assert.deepEqual(rows[1], ['link', 'link_1', 'dub.sh/spring', 'the key is taken on wm.example.com by another workspace']);
    assert.deepEqual(rows[2], ['click', 'c_1', 'dub.sh/x,"y"', 'its link was not copied']);
    // Whatever the shared cell function makes of a formula, the report holds the same.
    assert.deepEqual(rows[3]!.slice(0, 3), ['link', cellOf('=HYPERLINK("http://evil")'), cellOf('dub.sh/=1+1')]);

    const summary = tally.finish([{ from: 'dub.sh', to: 'wm.example.com', links: 2 }]);
    assert.deepEqual(summary.reasons.map((r) => [r.kind, r.count]), [['link', 2], ['click', 1]]);
    const lines = describeSummary(summary);
    assert.ok(lines.includes('links: 0 copied, 0 already there, 2 rejected'), lines.join('\n'));
    assert.ok(lines.includes('links moved domain: 2 from dub.sh to wm.example.com (same keys: their short links change)'));
    assert.ok(lines.includes('clicks: 0 copied, 0 already there, 1 rejected'));
    assert.deepEqual(lines.slice(-3), ['Rejected, by reason:', '  2 links: the key is taken on wm.example.com by another workspace', '  1 clicks: its link was not copied']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unwritable report path is refused when the report is opened, before any import work', () => {
  assert.throws(() => openRejectionReport('/nonexistent-dir/rejected.csv'), /ENOENT/);
});

/**
 * kill -9 during a compaction of the DuckDB event file, in a real process: a child process seeds
 * a closed week, then appends click batches (`appendClicks`) while `compact` rewrites that week,
 * and is killed once the compaction runs. Reopened, the file holds every seeded event and every
 * batch whose append returned, each once, and every batch it recorded is whole, with its rows
 * tagged for the fold (`batchLog.after`), so the fold counts each click once after the restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { openDuckDbEngine } from './duckdb-engine.js';

const SEEDED = 100_000;
const BATCH = 200;
/** Monday 2026-01-05: the seeded week is closed long before now. */
const WEEK = Date.parse('2026-01-05T00:00:00Z');

// Source files are named from the repository's root: tests run transpiled (run-tests.mjs) from there.
test('kill -9 during a compaction: seeded events and acknowledged click batches are all stored once, batches whole', { timeout: 240_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-compaction-crash-'));
  const file = join(dir, 'events.duckdb');
  try {
    const script = join(dir, 'child.mts');
    writeFileSync(
      script,
      `import { openDuckDbEngine } from ${JSON.stringify(resolve('src/events/duckdb/duckdb-engine.ts'))};
import { contractEvent } from ${JSON.stringify(resolve('src/events/contract.ts'))};
import { columnsOf } from ${JSON.stringify(resolve('src/events/batch/wide-rows.ts'))};
const engine = await openDuckDbEngine({ path: ${JSON.stringify(file)} });
const WEEK = ${WEEK};
for (let from = 0; from < ${SEEDED}; from += 50000) {
  await engine.append(Array.from({ length: 50000 }, (_, i) => contractEvent('ws_' + ((from + i) % 7), 'lnk_' + ((from + i) % 50), { id: 'evt_s' + (from + i), click_id: 'evt_s' + (from + i), timestamp: WEEK + (from + i) * 1000 })));
}
// Into the file: the restart replays only what came after.
await engine.checkpoint();
console.log('seeded');
let n = 0;
const appending = (async () => {
  for (;;) {
    const id = 'b' + ++n;
    const now = Date.now();
    await engine.appendClicks(id, columnsOf(Array.from({ length: ${BATCH} }, (_, i) => contractEvent('ws_1', 'lnk_new', { id: 'evt_' + id + '_' + i, click_id: 'evt_' + id + '_' + i, timestamp: now }))));
    console.log('acked ' + id);
  }
})();
while (n < 4) await new Promise((r) => setTimeout(r, 10));
console.log('compacting');
await engine.compact(Date.now(), Number.MAX_SAFE_INTEGER, 7);
console.log('compacted');
await appending;
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    const acked = new Set<string>();
    let compacting = false;
    let compacted = false;
    let buffer = '';
    child.stdout.on('data', (d: Buffer) => {
      buffer += d;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('acked ')) acked.add(line.slice('acked '.length));
        else if (line === 'compacting') {
          compacting = true;
          // Into the rewrite of the week's 100,000 rows (several hundred ms), then the kill.
          setTimeout(() => child.kill('SIGKILL'), 100);
        } else if (line === 'compacted') compacted = true;
      }
    });
    const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
    assert.equal(signal, 'SIGKILL');
    assert.ok(compacting, 'the child reached the compaction');
    t.diagnostic(`${acked.size} batches acknowledged before the kill; the compaction ${compacted ? 'had finished (a weaker case: the kill came after it)' : 'was cut short'}`);

    const engine = await openDuckDbEngine({ path: file });
    try {
      const one = async (text: string) => Number((await engine.query({ text, params: [] }))[0]!.n);
      assert.equal(await one(`SELECT count(*) AS n FROM events WHERE id LIKE 'evt_s%'`), SEEDED, 'every seeded event, once');
      assert.equal(await one('SELECT count(*) - count(DISTINCT id) AS n FROM events'), 0, 'no event stored twice');
      const recorded = new Map((await engine.query({ text: 'SELECT batch_id, seq FROM click_batches', params: [] })).map((r) => [String(r.batch_id), Number(r.seq)]));
      const missing = [...acked].filter((id) => !recorded.has(id));
      assert.deepEqual(missing, [], 'every acknowledged batch is recorded');
      // Each recorded batch whole, and read back whole by the fold.
      const batches = await engine.batchLog!.after(0);
      assert.equal(batches.length, recorded.size);
      for (const b of batches) assert.equal(b.clicks.length, BATCH, `batch ${b.seq} whole`);
      assert.equal(await one(`SELECT count(*) AS n FROM events WHERE link_id = 'lnk_new'`), recorded.size * BATCH, 'no click outside a recorded batch');
    } finally {
      await engine.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

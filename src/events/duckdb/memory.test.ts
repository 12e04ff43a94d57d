/**
 * What the DuckDB engine reports of its memory (memory.ts): the limit it was opened with, and the
 * rows it holds in memory, by tag, summing to the total; and `checkpointMb`, which bounds the
 * write-ahead log and with it the rows held since the last checkpoint.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractEvent } from '../contract.js';
import { clickIdOf } from '../../visitors/click-id.js';
import { openDuckDbEngine } from './duckdb-engine.js';

const T = Date.parse('2026-01-01T00:00:00Z');

test('memory: the limit set at open, and appended rows held in memory, the tags summing to the total', async () => {
  const engine = await openDuckDbEngine({ path: ':memory:', memoryLimit: '64MB' });
  try {
    const before = await engine.memory();
    // 64 MB as DuckDB prints it: 64,000,000 bytes = 61.0 MiB.
    assert.equal(before.limit, '61.0 MiB');
    const rows = Array.from({ length: 20_000 }, (_, i) =>
      contractEvent('ws_m', 'lnk_m', { id: clickIdOf(T + i, i, 3), click_id: clickIdOf(T + i, i, 3), timestamp: T + i, ua: `agent ${i} ${'x'.repeat(80)}` }));
    assert.equal(await engine.append(rows), rows.length);
    const after = await engine.memory();
    assert.ok(after.usedBytes > before.usedBytes, `${after.usedBytes} > ${before.usedBytes}`);
    // 20,000 agents of ~90 characters are at least 1.8 MB however DuckDB keeps them.
    assert.ok(after.usedBytes >= 1_800_000, `${after.usedBytes} bytes for 20,000 rows`);
    assert.equal(Object.values(after.byTag).reduce((a, b) => a + b, 0), after.usedBytes);
    assert.equal(after.temporaryBytes, 0);
  } finally {
    await engine.close();
  }
});

test('checkpointMb bounds the write-ahead log (and so the rows held in memory since the last checkpoint)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-checkpoint-'));
  const walMb = (file: string) => (existsSync(`${file}.wal`) ? statSync(`${file}.wal`).size / 1_048_576 : 0);
  try {
    const sizes: number[] = [];
    const held: number[] = [];
    for (const checkpointMb of [1, 256]) {
      const file = join(dir, `c${checkpointMb}.duckdb`);
      const engine = await openDuckDbEngine({ path: file, checkpointMb });
      try {
        // 10 appends of 2,000 rows with 200-character agents: ~4 MB of log.
        for (let b = 0; b < 10; b++) {
          const rows = Array.from({ length: 2_000 }, (_, i) => {
            const n = b * 2_000 + i;
            return contractEvent('ws_c', 'lnk_c', { id: clickIdOf(T + n, n, 5), click_id: clickIdOf(T + n, n, 5), timestamp: T + n, ua: `agent ${n} ${'y'.repeat(200)}` });
          });
          await engine.append(rows);
        }
        sizes.push(walMb(file));
        // The checkpoint beside the appends frees their rows once it runs without one beside it.
        for (let i = 0; i < 100 && checkpointMb === 1 && walMb(file) > 0; i++) await new Promise((r) => setTimeout(r, 50));
        held.push((await engine.memory()).byTag.IN_MEMORY_TABLE ?? 0);
      } finally {
        await engine.close();
      }
    }
    const [small, large] = sizes as [number, number];
    assert.ok(large > 2, `at 256 MB the log keeps every append: ${large.toFixed(1)} MB`);
    // Checkpointed on the way, beside the appends: what was appended while one ran stays in the
    // log, and DuckDB's own checkpoint at 4 × the setting is the backstop.
    assert.ok(small < large / 1.5 && small <= 4.5, `at 1 MB it is checkpointed on the way: ${small.toFixed(1)} MB against ${large.toFixed(1)}`);
    assert.ok(held[0]! < held[1]! / 2, `rows held in memory since the last checkpoint: ${held[0]} bytes at 1 MB, ${held[1]} at 256 MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * An import in process (a `:memory:` database, which no thread can open, or the CLI) yields to the
 * event loop every few milliseconds (time-slice.ts), writing 50 rows a transaction: 20,000 rows,
 * half of them written, hold the loop under 50 ms at any moment (test-support/event-loop.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { measureLoopStall } from '../test-support/event-loop.js';
import { createStandaloneImporter } from './standalone.js';

const STALL_MS = 50;

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('20,000 rows imported in process (no import thread: time slices alone)', { timeout: 600_000 }, async () => {
  const importer = createStandaloneImporter(t.config, t.database);
  const ws = (await t.ctx.workspaces.findWorkspace(t.workspaceId))!;
  // What a first import pays once (the link schema compiled on first use, modules loaded) is not
  // the import's work: pay it before measuring.
  await importer.importCsv(ws, Readable.from([Buffer.from('url,key,tags\nhttps://example.com/warm,warm,x\n')]), { dryRun: true });
  const csv = ['url,key,tags', ...Array.from({ length: 20_000 }, (_, i) => (i % 2 ? `https://example.com/p/${i},in-process-${i},"a,b"` : ',,'))].join('\n');
  const { result, stallMs, figures } = await measureLoopStall(() => importer.importCsv(ws, Readable.from([Buffer.from(csv)]), { dryRun: false }));
  assert.deepEqual(result.counts, { rows: 20_000, created: 10_000, skipped: 0, rejected: 10_000 });
  assert.ok(stallMs < STALL_MS, `the event loop was held ${stallMs.toFixed(1)} ms: ${figures}`);
});

/**
 * A full disk under a click flood (issue 26, class 3): the real process with its SQLite file, DuckDB
 * file and log on a small tmpfs; fill, free, and every answered click is stored and counted once.
 * Shared set-up and why: support.ts; docs/redirects.md, "A full disk".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createLink, freePort, startClickLoad, type ServerProcess } from '../../src/test-support/server-process.js';
import { mountSmallDisk } from '../../src/test-support/small-disk.js';
import { answeredAtLeast, countersNeverAhead, DISK_MB, serverOn, settledAt, skip, stop, type Api } from './support.js';

test('flood, fill, free: redirects answer throughout, and once space returns every answered click is stored and counted once', { skip, timeout: 600_000 }, async () => {
  const disk = mountSmallDisk(DISK_MB);
  const spillDir = mkdtempSync(join(tmpdir(), 'waymark-spill-'));
  let server: ServerProcess | undefined;
  const trace: string[] = [];
  try {
    const api: Api = { port: await freePort(), key: `wm_${randomBytes(12).toString('hex')}` };
    server = await serverOn(disk, spillDir, api.port, api.key);
    api.output = server.output;
    const link = await createLink(api.port, api.key, { url: 'https://example.com/full', key: 'full' });
    const load = startClickLoad({ port: api.port, host: link.host, path: link.path, ipPrefix: '10.31', connections: 8, max: 12_000 });
    await answeredAtLeast(load, 2_000);

    const filler = disk.fill();
    const atFill = load.answered.size;
    trace.push(`filled ${filler.bytes} bytes at ${atFill} answers; volume ${JSON.stringify(disk.sizes())}`);
    // While full: redirects keep answering (their clicks wait in memory), /health answers, and
    // the counters never run ahead of what is stored.
    await countersNeverAhead(api, link.id, 6, trace);
    assert.ok(load.answered.size > atFill + 300, `redirects went on while the disk was full (${atFill} → ${load.answered.size})`);
    assert.equal((await fetch(`http://127.0.0.1:${api.port}/health`)).status, 200);

    filler.free();
    trace.push(`freed at ${load.answered.size} answers`);
    // The flood goes on into the freed space: the write-ahead log must not take it all back.
    await countersNeverAhead(api, link.id, 6, trace);
    await load.done;
    const answered = load.answered.size;
    trace.push(`flood done: ${answered} answered of ${load.sent.size} sent; volume ${JSON.stringify(disk.sizes())}, ${disk.freeBytes()} bytes free`);

    const settled = await settledAt(api, link.id, answered);
    assert.equal(settled.events, answered, `every answered click is stored\n${trace.join('\n')}\n${server.output().slice(-3000)}`);
    assert.equal(settled.counter, answered, 'the link counter equals the events');
    // DuckDB's log keeps to its budget, a quarter of the free space (plus an append's growth),
    // instead of taking the freed space back (at the fixed 256 MB: ~400 bytes a click, 8 MB here).
    const wal = disk.sizes()['waymark.events.duckdb.wal'] ?? 0;
    assert.ok(wal <= (wal + disk.freeBytes()) / 4 + 2 * 1024 * 1024, `the log (${wal} bytes) is within its budget; ${disk.freeBytes()} bytes free`);
    assert.equal(await stop(server), 0, server.output().slice(-3000));
  } finally {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await server?.exited;
    disk.unmount();
    rmSync(spillDir, { recursive: true, force: true });
    console.log(trace.join('\n'));
  }
});


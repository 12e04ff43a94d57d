/**
 * A full disk and a restart (issue 26, class 3): SIGTERM while full with the spill folder on another
 * volume, a start while still full that serves, and nothing answered missing once space returns.
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
import { answeredAtLeast, countersAndEvents, DISK_MB, serverOn, settledAt, skip, stop } from './support.js';

test('SIGTERM while the disk is full (spill folder elsewhere), a restart while still full: it starts, serves and buffers; after space returns nothing answered is missing', { skip, timeout: 600_000 }, async () => {
  const disk = mountSmallDisk(DISK_MB);
  const spillDir = mkdtempSync(join(tmpdir(), 'waymark-spill-'));
  const servers: ServerProcess[] = [];
  const trace: string[] = [];
  try {
    const api = { port: await freePort(), key: `wm_${randomBytes(12).toString('hex')}` };
    servers.push(await serverOn(disk, spillDir, api.port, api.key));
    const link = await createLink(api.port, api.key, { url: 'https://example.com/restart', key: 'restart' });
    const first = startClickLoad({ port: api.port, host: link.host, path: link.path, ipPrefix: '10.32', connections: 8, max: 40_000 });
    await answeredAtLeast(first, 1_000);
    const filler = disk.fill();
    const atFill = first.answered.size;
    await answeredAtLeast(first, atFill + 1_000);

    // SIGTERM with the disk full: what is not committed goes to the spill folder, on another volume.
    assert.equal(await stop(servers[0]), 0, `exit 0: every click committed or spilled\n${servers[0]!.output().slice(-3000)}`);
    await first.stop();
    const answeredFirst = first.answered.size;
    trace.push(`first run: ${answeredFirst} answered, filled at ${atFill}; ${disk.freeBytes()} bytes free`);

    // A restart while the disk is still full starts, answers /health and serves redirects.
    const second = await serverOn(disk, spillDir, api.port, api.key);
    servers.push(second);
    assert.equal((await fetch(`http://127.0.0.1:${api.port}/health`)).status, 200);
    const load2 = startClickLoad({ port: api.port, host: link.host, path: link.path, ipPrefix: '10.33', connections: 4, max: 1_000 });
    await load2.done;
    assert.equal(load2.answered.size, 1_000, `redirects answered while the disk is full\n${second.output().slice(-2000)}`);

    // Space returns: the clicks buffered meanwhile are stored by themselves, without a restart.
    const whileFull = await countersAndEvents(api, link.id);
    filler.free();
    const healed = await settledAt(api, link.id, whileFull.events + load2.answered.size);
    trace.push(`second run: counter ${whileFull.counter}, events ${whileFull.events} while full; ${healed.counter}, ${healed.events} after the free`);
    assert.ok(healed.events >= whileFull.events + load2.answered.size, `the clicks buffered while full were stored once space returned\n${trace.join('\n')}\n${second.output().slice(-3000)}`);
    assert.equal(await stop(second), 0, second.output().slice(-3000));

    // The next start replays what the first one spilled (if its replay met the full disk, it is kept until then).
    const third = await serverOn(disk, spillDir, api.port, api.key);
    servers.push(third);
    const want = answeredFirst + load2.answered.size;
    const settled = await settledAt(api, link.id, want);
    assert.equal(settled.events, want, `every answered click is stored\n${trace.join('\n')}\n${second.output().slice(-3000)}\n${third.output().slice(-2000)}`);
    assert.equal(settled.counter, want, 'the link counter equals the events');
    assert.equal(await stop(third), 0, third.output().slice(-3000));
  } finally {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    disk.unmount();
    rmSync(spillDir, { recursive: true, force: true });
    console.log(trace.join('\n'));
  }
});


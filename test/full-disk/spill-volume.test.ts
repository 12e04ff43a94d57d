/**
 * The spill folder on a full data volume (issue 26, class 3): the start warns, and a SIGTERM while
 * full loses only what it says it lost.
 * Shared set-up and why: support.ts; docs/redirects.md, "A full disk".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createLink, freePort, startClickLoad, type ServerProcess } from '../../src/test-support/server-process.js';
import { mountSmallDisk } from '../../src/test-support/small-disk.js';
import { answeredAtLeast, DISK_MB, serverOn, settledAt, skip, stop } from './support.js';

test('the spill folder on the data volume: the start warns, and a SIGTERM while full loses only what it says it lost', { skip, timeout: 600_000 }, async () => {
  const disk = mountSmallDisk(DISK_MB);
  const spillDir = join(disk.dir, 'click-spill');
  const servers: ServerProcess[] = [];
  const trace: string[] = [];
  try {
    const api = { port: await freePort(), key: `wm_${randomBytes(12).toString('hex')}` };
    servers.push(await serverOn(disk, spillDir, api.port, api.key));
    assert.match(servers[0]!.output(), /spill folder .* same volume/i, 'the start warns of the spill folder on the data volume');
    const link = await createLink(api.port, api.key, { url: 'https://example.com/same', key: 'same' });
    const load = startClickLoad({ port: api.port, host: link.host, path: link.path, ipPrefix: '10.34', connections: 8, max: 40_000 });
    await answeredAtLeast(load, 1_000);
    const filler = disk.fill();
    await answeredAtLeast(load, load.answered.size + 1_000);
    const code = await stop(servers[0]);
    await load.stop();
    const answered = load.answered.size;
    const output = servers[0]!.output();
    const lost = [...output.matchAll(/giving up: (\d+) clicks/g)].reduce((n, m) => n + Number(m[1]), 0);
    trace.push(`SIGTERM while full, spill on the same volume: exit ${code}, ${answered} answered, ${lost} reported lost`);
    // Exit 1 exactly when clicks were lost, and then the log says how many.
    assert.equal(code, lost > 0 ? 1 : 0, output.slice(-3000));

    filler.free();
    servers.push(await serverOn(disk, spillDir, api.port, api.key));
    const settled = await settledAt(api, link.id, answered - lost, 120_000);
    trace.push(`after free and restart: counter ${settled.counter}, events ${settled.events}`);
    assert.equal(settled.events, answered - lost, `stored = answered - reported lost\n${trace.join('\n')}\n${output.slice(-3000)}`);
    assert.equal(settled.counter, settled.events, 'the link counter equals the events');
    assert.equal(await stop(servers[1]), 0, servers[1]!.output().slice(-3000));
  } finally {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    disk.unmount();
    console.log(trace.join('\n'));
  }
});

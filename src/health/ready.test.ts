/**
 * `GET /ready` on the real process (issue 29): 503 through every step of a start, including the
 * replay of a spill file, and 200 only once every spilled click is stored; `/health` answers 200
 * meanwhile. (The database outage: ready-outage.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { getJson, waitFor, type JsonAnswer } from '../test-support/http-probe.js';
import { sql } from 'kysely';
import { freePort, privateDatabase, spawnServer } from '../test-support/processes.js';
import { linkRow } from '../test-support/link-row.js';
import { createWorkspaceService } from '../workspaces/service.js';
import { createWorkspaceStore } from '../workspaces/store.js';
import { writeSpillFile } from '../redirect/click-spill.js';
import { newClickIdAt } from '../visitors/click-id.js';
import type { RawClick } from '../events/index.js';

/** Enough clicks that their replay lasts about half a second on a quiet machine (~50 µs a click; longer under load), while /ready is polled every 20 ms. */
const SPILLED = 10_000;

type Probe = JsonAnswer<{ status?: string; phase?: string; reason?: string }>;
const probe = (port: number, path: string) => getJson<Probe['body']>(port, path);

test('/ready is 503 through the start, spill replay included, and 200 once every spilled click is stored', { timeout: 120_000 }, async (t) => {
  const db = await privateDatabase();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const spillDir = join(db.dir, 'spill');
  const database = await db.open();
  try {
    const { workspace } = await createWorkspaceService(createWorkspaceStore(database.db), Date.now).ensureDefault(key);
    const now = Date.now();
    await database.db.insertInto('links').values(linkRow({ id: 'link_spilled', workspace_id: workspace.id, domain: 'go.ready.test', key: 'spilled', url: 'https://example.com/' }, now)).execute();
    const clicks: RawClick[] = Array.from({ length: SPILLED }, (_, i) => ({
      id: newClickIdAt(now - 60_000 + i),
      timestamp: now - 60_000 + i,
      linkId: 'link_spilled',
      workspaceId: workspace.id,
      domain: 'go.ready.test',
      key: 'spilled',
      url: 'https://example.com/',
      ip: `10.9.${(i >> 8) & 255}.${i & 255}`,
      ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      referer: '',
      qr: false,
      geo: null,
    }));
    writeSpillFile(spillDir, database.identity, clicks);
  } finally {
    await database.close();
  }

  const port = await freePort();
  const server = spawnServer(db.url, port, key, { CLICK_SPILL_DIR: spillDir });
  try {
    // Every change of /ready's answer, in order, until it is 200.
    const seen: string[] = [];
    const seenAt: number[] = [];
    const spawnedAt = Date.now();
    let duringReplay: { health?: number; api?: Probe | null } = {};
    await waitFor(
      '/ready to answer 200',
      async () => {
        if (server.child.exitCode !== null) throw new Error(`the server exited:\n${server.output()}`);
        const ready = await probe(port, '/ready');
        if (!ready) return false;
        const label = ready.status === 200 ? '200 ready' : `${ready.status} ${ready.body.status}${ready.body.phase ? `: ${ready.body.phase}` : ''}`;
        if (seen.at(-1) !== label) {
          seen.push(label);
          seenAt.push(Date.now());
        }
        if (ready.body.phase === 'spill replay' && duringReplay.health === undefined) {
          duringReplay = { health: (await probe(port, '/health'))?.status, api: await probe(port, '/links') };
        }
        return ready.status === 200;
      },
      90_000,
    );
    t.diagnostic(`/ready answered, in order (ms after the spawn): ${seen.map((l, i) => `${l} (${seenAt[i]! - spawnedAt})`).join(' → ')}`);

    const steps = ['503 starting: migrations', '503 starting: event store', '503 starting: click writer', '503 starting: spill replay'];
    assert.ok(seen.includes('503 starting: spill replay'), `the replay was seen: ${seen.join(', ')}`);
    assert.deepEqual(seen.slice(0, -1), steps.filter((s) => seen.includes(s)), 'only start steps, in their order');
    assert.equal(seen.at(-1), '200 ready');
    assert.equal(duringReplay.health, 200, '/health answers during the start');
    assert.equal(duringReplay.api?.status, 503, 'the API is not served during the start');
    assert.equal((duringReplay.api?.body as { error?: { code: string } }).error?.code, 'service_unavailable');

    // Ready only after the replay: every spilled click is in the database.
    const check = await db.open();
    try {
      const { n } = await check.db.selectFrom('events').select(sql<number>`count(*)`.as('n')).where('link_id', '=', 'link_spilled').executeTakeFirstOrThrow();
      assert.equal(Number(n), SPILLED);
    } finally {
      await check.close();
    }
    assert.equal((await probe(port, '/health'))?.status, 200);

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await db.dispose();
  }
});

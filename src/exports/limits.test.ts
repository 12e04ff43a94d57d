/**
 * What one workspace's exports may cost the others (issue 26): a large export read as fast as it
 * comes never holds the event loop for long, and a workspace streams at most
 * `EXPORTS_PER_WORKSPACE` exports at once (the next is 429 `rate_limit_exceeded`), each slot given
 * back when its body closes, sent or abandoned.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { get, type ClientRequest, type IncomingMessage } from 'node:http';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink } from '../redirect/testing.js';
import type { StoredEvent } from '../events/index.js';
import { assertLoopFree, loopDuring } from '../test-support/event-loop.js';
import { addUser, logIn, slugOf, type Browser } from '../dashboard/testing.js';

// Large enough that a paused reader's export cannot finish into the kernel's socket buffers
// (several MB each way on loopback): at 20,000 events (~4.6 MB of CSV) a held export sometimes
// ended before the test asked for the next one, and its slot was free.
const EVENTS = 50_000;
let t: TestApp;
let base: string;

before(async () => {
  t = await createTestApp({ env: { EXPORTS_PER_WORKSPACE: '2' }, config: { eventsUrl: 'sql' } });
  base = await t.listen();
  const link = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'big', url: 'https://example.com/big' });
  const start = Date.now() - 3_600_000;
  for (let from = 0; from < EVENTS; from += 5000) {
    const rows: StoredEvent[] = [];
    for (let i = from; i < from + 5000; i++) {
      const id = `clk_big_${String(i).padStart(6, '0')}`;
      rows.push({
        workspace_id: t.workspaceId, timestamp: start + i, id, kind: 'click', click_id: id, link_id: link.id!, domain: 'go.test', key: 'big', url: 'https://example.com/big',
        country: 'US', city: 'Austin', region: 'US-TX', continent: 'NA', device: 'Desktop', browser: 'Chrome', os: 'Windows', referer: '=evil.example', referer_url: 'https://=evil.example/',
        trigger: 'link', ip: '203.0.113.9', ua: 'Mozilla/5.0', amount: 0,
      });
    }
    await t.ctx.events.append(rows);
  }
});
after(() => t.close());

const EXPORT = '/events/export?event=clicks&interval=24h';

/** Reads a response over HTTP as fast as it comes, counting its lines. */
function readAll(url: string): Promise<{ status: number; lines: number }> {
  return new Promise((resolve, reject) => {
    get(`${base}${url}`, { headers: t.headers }, (res) => {
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, lines }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

test('a large export read as fast as it comes leaves the event loop free', async (tc) => {
  // Once unmeasured: the first call of each function on the way is compiled then (tens of ms, once a process).
  assert.deepEqual(await readAll(EXPORT), { status: 200, lines: EVENTS + 1 });
  let res: { status: number; lines: number } | undefined;
  const held = await loopDuring(async () => {
    res = await readAll(EXPORT);
  });
  assert.deepEqual(res, { status: 200, lines: EVENTS + 1 }, 'every event and the header');
  assertLoopFree(tc, 'export-events-50k-http', held);
});

/** A client that reads the response head and then nothing: its export waits on the socket. */
function stalledClient(url: string, headers: Record<string, string>): Promise<{ res: IncomingMessage; req: ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = get(`${base}${url}`, { headers }, (res) => {
      res.pause();
      resolve({ res, req });
    });
    req.on('error', reject);
  });
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting: ${what}`);
}

test('past EXPORTS_PER_WORKSPACE running exports the next one is 429; another workspace is not affected; a slot returns when a client goes away', async () => {
  // Everything the checks need is made first, so the held exports are held only while they run.
  const browser = await logIn(t, await addUser(t, 'owner'));
  const other = await t.addWorkspace();
  const held = [await stalledClient(EXPORT, t.headers), await stalledClient(`${EXPORT}&format=ndjson`, t.headers)];
  try {
    await holdingTwo(held, browser, other);
  } finally {
    for (const h of held) h.req.destroy();
  }
});

async function holdingTwo(held: { res: IncomingMessage; req: ClientRequest }[], browser: Browser, other: { headers: Record<string, string> }) {
  for (const h of held) assert.equal(h.res.statusCode, 200);
  await until('both exports counted', () => t.modules.exports.service.running(t.workspaceId) === 2);

  const refused = await t.inject({ method: 'GET', url: EXPORT });
  assert.equal(refused.statusCode, 429);
  const { error } = refused.json();
  assert.equal(error.code, 'rate_limit_exceeded');
  assert.match(error.message, /2 running exports per workspace/);
  assert.match(error.doc_url, /#rate-limit_exceeded$/);
  assert.ok(Number(refused.headers['retry-after']) > 0);
  // The dashboard's downloads count against the same exports.
  assert.equal(t.modules.exports.service.running(t.workspaceId), 2, 'both exports still held');
  assert.equal((await browser.get(`/dashboard/w/${await slugOf(t)}/analytics/export?groupBy=countries`)).statusCode, 429);

  assert.equal((await t.app.inject({ method: 'GET', url: '/links/export', headers: other.headers })).statusCode, 200, 'another workspace exports');

  // A client that goes away gives its slot back; so does an export that ends.
  held[0]!.req.destroy();
  await until('the abandoned export released', () => t.modules.exports.service.running(t.workspaceId) === 1);
  const small = await t.inject({ method: 'GET', url: '/analytics/export?groupBy=countries' });
  assert.equal(small.statusCode, 200);
  await until('a finished export released', () => t.modules.exports.service.running(t.workspaceId) === 1);
  held[1]!.res.resume();
  await new Promise((r) => held[1]!.res.on('end', r));
  await until('the read export released', () => t.modules.exports.service.running(t.workspaceId) === 0);
  // A refused filter is answered before the stream and counts nothing.
  assert.equal((await t.inject({ method: 'GET', url: '/events/export?event=views' })).statusCode, 422);
  assert.equal(t.modules.exports.service.running(t.workspaceId), 0);
}

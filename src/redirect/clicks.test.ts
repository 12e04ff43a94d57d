/**
 * Click recording end to end: what a click row holds, exactly one row per human visit, counters,
 * deduplication, bots, conversion tracking, the click lookup, and no loss at shutdown.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { createTestApp, TEST_ENGINE, type TestApp } from '../test-support/harness.js';
import { hit, insertLink, type HitOptions } from './testing.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

let t: TestApp;
let base: string;

before(async () => {
  t = await createTestApp({ env: { VISITOR_IP: 'full', TRUST_PROXY: 'true', TRUST_GEO_HEADERS: 'true' } });
  base = await t.listen();
});
after(() => t.close());

const visit = (path: string, ip: string, options: Partial<HitOptions> & { ua?: string } = {}) =>
  hit(base, path, { host: options.host ?? 'go.test', method: options.method, headers: { 'user-agent': options.ua ?? CHROME, 'x-forwarded-for': ip, ...options.headers } });

async function eventsOf(app: TestApp, linkId: string) {
  await app.modules.redirect.flushClicks();
  return app.database.db.selectFrom('events').selectAll().where('link_id', '=', linkId).orderBy('timestamp').execute();
}

async function linkRow(app: TestApp, id: string) {
  return app.database.db.selectFrom('links').select(['clicks', 'last_clicked']).where('id', '=', id).executeTakeFirstOrThrow();
}

test('a click row holds the visit: link, final URL, geo, device, referer, trigger, ip, utm', async () => {
  const l = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'rec', url: 'https://example.com/p?utm_source=link&utm_campaign=spring' });
  const res = await visit('/rec?utm_medium=email&qr=1', '203.0.113.5', {
    ua: IPHONE,
    headers: { referer: 'https://www.news.example/story?id=7', 'cf-ipcountry': 'US', 'cf-region-code': 'CA', 'cf-ipcity': 'San Francisco' },
  });
  assert.equal(res.location, 'https://example.com/p?utm_source=link&utm_campaign=spring&utm_medium=email');
  const [e, ...rest] = await eventsOf(t, l.id as string);
  assert.equal(rest.length, 0);
  assert.ok(e);
  assert.match(e.id, /^[0-9A-Za-z]{16}$/);
  assert.deepEqual(
    { ...e, id: undefined, timestamp: undefined },
    {
      id: undefined,
      timestamp: undefined,
      workspace_id: t.workspaceId,
      kind: 'click',
      click_id: e.id,
      link_id: l.id,
      domain: 'go.test',
      key: 'rec',
      url: 'https://example.com/p?utm_source=link&utm_campaign=spring&utm_medium=email',
      country: 'US',
      city: 'San Francisco',
      region: 'US-CA',
      continent: 'NA',
      device: 'Mobile',
      browser: 'Mobile Safari',
      os: 'iOS',
      referer: 'news.example',
      referer_url: 'https://www.news.example/story?id=7',
      trigger: 'qr',
      ip: '203.0.113.5',
      ua: IPHONE,
      utm_source: 'link',
      utm_medium: 'email',
      utm_campaign: 'spring',
      utm_term: null,
      utm_content: null,
      customer_id: null,
      event_name: null,
      amount: 0,
      currency: null,
      original_amount: null,
      payment_processor: null,
      invoice_id: null,
      sale_type: null,
      metadata: null,
    },
  );
  assert.ok(Math.abs(Number(e.timestamp) - Date.now()) < 60_000);
  const direct = await visit('/rec', '203.0.113.6');
  assert.equal(direct.status, 302);
  const rows = await eventsOf(t, l.id as string);
  assert.equal(rows[1]!.referer, '(direct)');
  assert.equal(rows[1]!.referer_url, '(direct)');
  assert.equal(rows[1]!.trigger, 'link');
});

test('N human clicks → exactly N events, link.clicks == N, lastClicked and workspace usage follow', async () => {
  const other = await t.addWorkspace();
  const l = await insertLink(t.database.db, other.workspaceId, { domain: 'go.test', key: 'count', url: 'https://example.com/' });
  const N = 37;
  const before = Date.now();
  await Promise.all(Array.from({ length: N }, (_, i) => visit('/count', `10.1.0.${i}`)));
  const events = await eventsOf(t, l.id as string);
  assert.equal(events.length, N);
  assert.equal(new Set(events.map((e) => e.id)).size, N);
  const row = await linkRow(t, l.id as string);
  assert.equal(Number(row.clicks), N);
  assert.equal(Number(row.last_clicked), Math.max(...events.map((e) => Number(e.timestamp))));
  assert.ok(Number(row.last_clicked) >= before);
  const ws = await t.database.db.selectFrom('workspaces').select('usage').where('id', '=', other.workspaceId).executeTakeFirstOrThrow();
  assert.equal(Number(ws.usage), N);
});

test('the same visitor on the same link within the hour is one click; other links and visitors count', async () => {
  const a = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'dedup-a', url: 'https://example.com/a', track_conversion: 1 });
  const b = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'dedup-b', url: 'https://example.com/b' });
  const first = await visit('/dedup-a', '10.2.0.1');
  const again = await visit('/dedup-a', '10.2.0.1');
  assert.equal(new URL(first.location!).searchParams.get('waymark_id'), new URL(again.location!).searchParams.get('waymark_id'), 'same click id reused');
  await visit('/dedup-a', '10.2.0.1', { ua: IPHONE });
  await visit('/dedup-a', '10.2.0.2');
  await visit('/dedup-b', '10.2.0.1');
  assert.equal((await eventsOf(t, a.id as string)).length, 3);
  assert.equal(Number((await linkRow(t, a.id as string)).clicks), 3);
  assert.equal((await eventsOf(t, b.id as string)).length, 1);
});

test('bots, HEAD requests and dub-no-track are redirected but not recorded', async () => {
  const l = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'nobots', url: 'https://example.com/' });
  for (const ua of ['curl/8.5.0', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'node', 'facebookexternalhit/1.1']) {
    assert.equal((await visit('/nobots', '10.3.0.1', { ua })).status, 302, ua);
  }
  const head = await visit('/nobots', '10.3.0.2', { method: 'HEAD' });
  assert.equal(head.status, 302);
  assert.equal(head.location, 'https://example.com/');
  assert.equal((await visit('/nobots?dub-no-track=1', '10.3.0.3')).status, 302);
  assert.equal((await visit('/nobots', '10.3.0.4', { headers: { 'dub-no-track': '1' } })).status, 302);
  assert.equal((await eventsOf(t, l.id as string)).length, 0);
  assert.equal(Number((await linkRow(t, l.id as string)).clicks), 0);
});

test('conversion tracking: click id on the destination and in a cookie; findClick sees it before and after the flush', async () => {
  const l = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'conv', url: 'https://shop.example/?ref=1', track_conversion: 1 });
  const res = await visit('/conv', '10.4.0.1');
  const clickId = new URL(res.location!).searchParams.get('waymark_id')!;
  assert.match(clickId, /^[0-9A-Za-z]{16}$/);
  assert.equal(res.location, `https://shop.example/?ref=1&waymark_id=${clickId}`);
  const cookie = res.cookies.find((c) => c.startsWith('waymark_id='))!;
  assert.match(cookie, new RegExp(`^waymark_id=${clickId}; Path=/conv; Max-Age=3600; SameSite=Lax`));

  const pending = await t.modules.redirect.clicks.findClick(t.workspaceId, clickId);
  assert.equal(pending?.link_id, l.id);
  await t.modules.redirect.flushClicks();
  const stored = await t.modules.redirect.clicks.findClick(t.workspaceId, clickId);
  assert.equal(stored?.id, clickId);
  assert.equal(stored?.url, res.location);
  const other = await t.addWorkspace();
  assert.equal(await t.modules.redirect.clicks.findClick(other.workspaceId, clickId), undefined, 'scoped by workspace');
  assert.equal(await t.modules.redirect.clicks.findClick(t.workspaceId, 'nonexistent00000'), undefined);

  const plain = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'noconv', url: 'https://shop.example/' });
  const untracked = await visit('/noconv', '10.4.0.2');
  assert.equal(untracked.location, 'https://shop.example/');
  assert.deepEqual(untracked.cookies, []);
  assert.equal((await eventsOf(t, plain.id as string)).length, 1, 'still a click');
});

test('conversion tracking switched on for the workspace applies to all its links', async () => {
  const ws = await t.addWorkspace();
  await t.database.db.updateTable('workspaces').set({ conversion_enabled: 1 }).where('id', '=', ws.workspaceId).execute();
  await insertLink(t.database.db, ws.workspaceId, { domain: 'go.test', key: 'ws-conv', url: 'https://shop.example/' });
  const res = await visit('/ws-conv', '10.5.0.1');
  assert.match(res.location!, /^https:\/\/shop\.example\/\?waymark_id=[0-9A-Za-z]{16}$/);
});

test('shutdown under load loses no click: everything answered is stored after app.close()', async () => {
  const app = await createTestApp({ env: { VISITOR_IP: 'full', TRUST_PROXY: 'true' } });
  const url = new URL(await app.listen());
  const l = await insertLink(app.database.db, app.workspaceId, { domain: 'go.test', key: 'load', url: 'https://example.com/' });
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  let answered = 0;
  let sent = 0;
  let stopped = false;
  const one = (n: number) =>
    new Promise<void>((resolve) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/load', agent, headers: { host: 'go.test', 'user-agent': CHROME, 'x-forwarded-for': `10.9.${(n >> 8) & 255}.${n & 255}` } },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 302) answered++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        stopped = true;
        resolve();
      });
      req.end();
    });
  const worker = async () => {
    while (!stopped && sent < 50_000) await one(sent++);
  };
  const load = Promise.all(Array.from({ length: 16 }, worker));
  while (answered < 300) await new Promise((r) => setTimeout(r, 5));
  await app.app.close(); // what SIGTERM does in main.ts: stop accepting, drain, flush
  stopped = true;
  await load;
  agent.destroy();
  const stats = app.modules.redirect.stats();
  const events = await app.database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('link_id', '=', l.id as string).executeTakeFirstOrThrow();
  const row = await app.database.db.selectFrom('links').select('clicks').where('id', '=', l.id as string).executeTakeFirstOrThrow();
  assert.ok(answered >= 300);
  assert.equal(stats.humanAnswers, stats.clicksRecorded);
  assert.equal(Number(events.n), stats.clicksRecorded, 'every recorded click is stored');
  assert.equal(Number(events.n), answered, 'every answered visit is stored');
  assert.equal(Number(row.clicks), answered);
  await app.database.close();
});

test('PostgreSQL: a change in one process drops the cached link in another (LISTEN/NOTIFY)', { skip: TEST_ENGINE !== 'postgres' && 'needs PostgreSQL' }, async () => {
  const { openDatabase } = await import('../db/open.js');
  const { buildApp } = await import('../app.js');
  const second = await openDatabase(process.env.DATABASE_URL!, { pgSchema: t.database.pgSchema, poolSize: 2 });
  const other = await buildApp({ config: t.config, database: second, logger: false });
  try {
    await other.app.listen({ port: 0, host: '127.0.0.1' });
    const address = other.app.server.address();
    const otherBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const l = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'shared', url: 'https://example.com/v1' });
    const get = () => hit(otherBase, '/shared', { host: 'go.test', headers: { 'user-agent': 'curl/8' } });
    assert.equal((await get()).location, 'https://example.com/v1');
    await t.database.db.updateTable('links').set({ url: 'https://example.com/v2' }).where('id', '=', l.id as string).execute();
    t.ctx.bus.publish({ type: 'link', domain: 'go.test', key: 'shared' }); // in process A
    const end = Date.now() + 10_000;
    let location = (await get()).location;
    while (location !== 'https://example.com/v2' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 20));
      location = (await get()).location;
    }
    assert.equal(location, 'https://example.com/v2');
  } finally {
    await other.app.close();
    await second.close();
  }
});

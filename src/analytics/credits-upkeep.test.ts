/**
 * Credits kept true when a journey changes after its sales were credited (docs/decisions/0015
 * item 4): an erasure of a touch (a click, an address, a link) queues the sales it credited and
 * the stored path answers read-time until they are recomputed, then the same again; a customer's
 * erasure and retention delete credits with their sales; earlier events of a customer written
 * later (an import) recompute the later sales through the queue.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink, type FixtureLink } from '../test-support/conversions.js';
import { conversionEvent, type StoredEvent } from '../events/index.js';
import { clickIdOf } from '../visitors/click-id.js';
import { newId } from '../ids.js';
import { seededRandom } from '../test-support/seeded-random.js';

let t: TestApp;
let links: FixtureLink[];
const DAY = 86_400_000;
const start = Date.now() - 150 * DAY;
const clicks: StoredEvent[] = [];
let n = 1;

function click(link: FixtureLink, at: number, ip = '203.0.113.9'): StoredEvent {
  const id = clickIdOf(at, n % 14_000_000, n++);
  const row = {
    workspace_id: t.workspaceId, timestamp: at, id, kind: 'click', click_id: id, link_id: link.id, domain: link.domain, key: link.key, url: link.url,
    country: 'DE', city: 'X', region: 'DE-X', continent: 'EU', device: 'Desktop', browser: 'Firefox', os: 'Linux', referer: '(direct)', referer_url: '(direct)',
    trigger: 'link', ip, ua: 'test', utm_source: null,
  } as StoredEvent;
  clicks.push(row);
  return row;
}
const lead = (ck: StoredEvent, customer: string, at = ck.timestamp + 60_000) =>
  conversionEvent(ck as never, { workspace_id: t.workspaceId, timestamp: at, id: newId('evt', at), kind: 'lead', customer_id: customer, event_name: 'Step' });
const sale = (ck: StoredEvent, customer: string, at: number, amount: number) =>
  conversionEvent(ck as never, { workspace_id: t.workspaceId, timestamp: at, id: newId('evt', at), kind: 'sale', customer_id: customer, event_name: 'Purchase', amount, sale_type: 'new' });

before(async () => {
  t = await createTestApp();
  links = [];
  for (let i = 0; i < 5; i++) links.push(await insertLink(t, { key: `upkeep-${i}` }));
  const rnd = seededRandom(4343);
  const rows: StoredEvent[] = [];
  for (let c = 0; c < 120; c++) {
    let at = start + Math.floor(rnd() * 40 * DAY);
    let last: StoredEvent | undefined;
    for (let k = 1 + Math.floor(rnd() * 4); k > 0; k--) {
      last = click(links[Math.floor(rnd() * links.length)]!, at, `198.51.100.${c % 7}`);
      rows.push(last, lead(last, `cus_up_${c}`));
      at += Math.floor(rnd() * 20 * DAY);
    }
    for (let s = 1 + Math.floor(rnd() * 2); s > 0; s--) rows.push(sale(last!, `cus_up_${c}`, Math.min(at + Math.floor(rnd() * 10 * DAY), Date.now() - 60_000), 1 + Math.floor(rnd() * 50_000)));
  }
  await t.ctx.events.append(rows);
  await t.modules.analytics.backfill.run({ restart: true });
});
after(() => t.close());

const get = async (query: string) => {
  const res = await t.inject({ method: 'GET', url: `/analytics?${query}` });
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries((res.json() as { link: { key: string }; sales: number; saleAmount: number }[]).map((r) => [r.link.key, [Math.round(r.sales * 1e4) / 1e4, r.saleAmount]]).sort());
};
const MODELS = ['first_click', 'linear', 'time_decay', 'position_based'];
async function storedEqualsReadTime(label: string) {
  for (const m of MODELS) {
    const q = `event=sales&groupBy=top_links&interval=all&attribution=${m}`;
    assert.deepEqual(await get(q), await get(`${q}&lookbackDays=90`), `${label}: ${m}`);
  }
}
const credits = (where: { customer?: string } = {}) => {
  let q = t.ctx.database.db.selectFrom('credits').select(['sale_id', 'click_id', 'timestamp']).where('workspace_id', '=', t.workspaceId);
  if (where.customer) q = q.where('customer_id', '=', where.customer);
  return q.execute();
};
const backfill = () => t.modules.analytics.backfill;

test('erasing a click queues the sales it credited; read-time answers meanwhile, then the recomputed credits answer the same', async () => {
  await storedEqualsReadTime('before');
  const touch = (await credits()).find((c) => clicks.some((k) => k.click_id === c.click_id))!;
  await t.ctx.events.forgetClick(touch.click_id);
  assert.equal(await backfill().ready(), false, 'queued: not ready');
  await backfill().recompute();
  assert.equal(await backfill().ready(), true);
  assert.ok(!(await credits()).some((c) => c.click_id === touch.click_id), 'no credit on the erased click');
  await storedEqualsReadTime('after forgetClick');
});

test("erasing an address and a link recompute the same way; a customer's erasure takes their credits", async () => {
  await t.ctx.events.forgetIp('198.51.100.3');
  await backfill().recompute();
  await storedEqualsReadTime('after forgetIp');
  await t.ctx.events.forgetLinks(t.workspaceId, [links[4]!.id]);
  await backfill().recompute();
  await storedEqualsReadTime('after forgetLinks');
  assert.ok((await credits({ customer: 'cus_up_1' })).length > 0);
  await t.ctx.database.db.transaction().execute((trx) => t.ctx.conversions.forgetCustomer(t.workspaceId, 'cus_up_1', trx));
  await t.ctx.conversions.afterCommit();
  assert.equal((await credits({ customer: 'cus_up_1' })).length, 0);
  assert.equal(await backfill().ready(), true);
  await storedEqualsReadTime('after forgetCustomer');
});

test("earlier events of a customer written later (an import) recompute the customer's later sales through the queue", async () => {
  const customer = 'cus_up_2';
  const [first] = await credits({ customer });
  assert.ok(first);
  const early = click(links[0]!, Number(first.timestamp) - 30 * DAY);
  await t.ctx.events.append([early, lead(early, customer)]);
  const queued = await t.ctx.database.db.transaction().execute((trx) => t.ctx.conversions.queueRecompute(t.workspaceId, [customer], early.timestamp, trx));
  assert.ok(queued > 0);
  assert.equal(await backfill().ready(), false);
  await backfill().recompute();
  assert.ok((await credits({ customer })).some((c) => c.click_id === early.click_id), 'the new earlier touch is credited');
  await storedEqualsReadTime('after the import');
});

test('retention deletes the credits of the sales before the horizon', async () => {
  const horizon = start + 60 * DAY;
  assert.ok((await credits()).some((c) => Number(c.timestamp) < horizon));
  while ((await t.ctx.events.expire(horizon, 10_000)) === 10_000);
  assert.ok(!(await credits()).some((c) => Number(c.timestamp) < horizon));
  assert.ok((await credits()).length > 0);
});

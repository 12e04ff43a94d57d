/**
 * Erasure end to end, on the engine under test: `DELETE /customers/{id}` (with and without
 * `deleteEvents`) and `waymark erase --ip / --click`, checked against the events table, the
 * analytics and the links' counters, which must keep agreeing with what remains.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit, insertLink } from '../redirect/testing.js';
import { runErase } from '../cli/erase.js';
import { runCli } from '../cli/index.js';
import { erasedTotals } from '../events/index.js';
import { describeErased, storedForms } from './erasure.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

let t: TestApp;
let base: string;
before(async () => {
  // The SQL store: these tests count rows of its events table (erasure on every store: events/contract.ts).
  t = await createTestApp({ env: { TRUST_PROXY: 'true' }, config: { eventsUrl: 'sql' } });
  base = await t.listen();
});
after(() => t.close());

/** A link with one click per address, each converted by a customer with a lead and a sale. */
async function converted(key: string, buyers: { ip: string; customer: string; amount: number }[]) {
  const link = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key, url: 'https://shop.example/', track_conversion: 1 });
  const clicks: string[] = [];
  for (const b of buyers) {
    const res = await hit(base, `/${key}`, { host: 'go.test', headers: { 'user-agent': CHROME, 'x-forwarded-for': b.ip } });
    clicks.push(new URL(res.location!).searchParams.get('waymark_id')!);
  }
  await t.modules.redirect.flushClicks();
  for (const [i, b] of buyers.entries()) {
    const lead = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId: clicks[i], eventName: 'Sign up', customerExternalId: b.customer, mode: 'wait' } });
    assert.equal(lead.statusCode, 200, lead.body);
    const sale = await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: b.customer, amount: b.amount } });
    assert.equal(sale.statusCode, 200, sale.body);
  }
  return { linkId: link.id as string, clicks };
}

/** The link's counters and what analytics count for it: they must agree. */
async function figures(linkId: string) {
  const l = await t.database.db.selectFrom('links').select(['clicks', 'leads', 'sales', 'sale_amount', 'conversions']).where('id', '=', linkId).executeTakeFirstOrThrow();
  const res = await t.inject({ method: 'GET', url: `/analytics?event=composite&interval=all&linkId=${linkId}` });
  assert.equal(res.statusCode, 200, res.body);
  const a = res.json();
  const counters = { clicks: Number(l.clicks), leads: Number(l.leads), sales: Number(l.sales), saleAmount: Number(l.sale_amount) };
  assert.deepEqual({ clicks: a.clicks, leads: a.leads, sales: a.sales, saleAmount: a.saleAmount }, counters, 'analytics agree with the counters');
  return { ...counters, conversions: Number(l.conversions) };
}

const eventCount = async (column: 'customer_id' | 'ip' | 'click_id', value: string) =>
  Number((await t.database.db.selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where(column, '=', value).executeTakeFirstOrThrow()).n);

test('DELETE /customers/{id} removes the customer; with deleteEvents=true their leads and sales too, counters following', async () => {
  const { linkId } = await converted('cust', [
    { ip: '192.0.2.10', customer: 'keep-events', amount: 1000 },
    { ip: '192.0.2.11', customer: 'erase-events', amount: 2500 },
  ]);
  assert.deepEqual(await figures(linkId), { clicks: 2, leads: 2, sales: 2, saleAmount: 3500, conversions: 2 });
  const ids = Object.fromEntries(
    (await t.database.db.selectFrom('customers').select(['id', 'external_id']).where('workspace_id', '=', t.workspaceId).execute()).map((c) => [c.external_id, c.id]),
  );

  const plain = await t.inject({ method: 'DELETE', url: '/customers/ext_keep-events' });
  assert.equal(plain.statusCode, 200, plain.body);
  assert.deepEqual(plain.json(), { id: ids['keep-events'] });
  assert.equal((await t.inject({ method: 'GET', url: '/customers/ext_keep-events' })).statusCode, 404, 'name, email, avatar and external id are gone');
  assert.equal(await eventCount('customer_id', ids['keep-events']!), 2, 'without the option the events stay');

  const erased = await t.inject({ method: 'DELETE', url: `/customers/${ids['erase-events']}?deleteEvents=true` });
  assert.equal(erased.statusCode, 200, erased.body);
  assert.deepEqual(erased.json(), { id: ids['erase-events'] }, 'the published response');
  assert.equal(await eventCount('customer_id', ids['erase-events']!), 0);
  assert.deepEqual(await figures(linkId), { clicks: 2, leads: 1, sales: 1, saleAmount: 1000, conversions: 1 });
  assert.equal((await t.inject({ method: 'DELETE', url: `/customers/${ids['erase-events']}?deleteEvents=true` })).statusCode, 404);
});

test('waymark erase --ip matches the stored (anonymized) form and erases clicks, leads and sales with their counts', async () => {
  const { linkId, clicks } = await converted('byip', [
    { ip: '198.51.100.7', customer: 'ip-a', amount: 700 },
    { ip: '203.0.113.9', customer: 'ip-b', amount: 300 },
  ]);
  assert.equal(await eventCount('ip', '198.51.100.0'), 3);
  const lines: string[] = [];
  assert.equal(await runErase({ config: t.config, database: t.database, ip: '198.51.100.7', out: (l) => lines.push(l) }), 0);
  assert.deepEqual(lines, ['ip 198.51.100.0: erased 1 click, 1 lead, 1 sale', 'ip 198.51.100.7: erased 0 clicks, 0 leads, 0 sales']);
  assert.equal(await eventCount('ip', '198.51.100.0'), 0);
  assert.equal(await eventCount('click_id', clicks[1]!), 3, "the other visitor's events stay");
  assert.deepEqual(await figures(linkId), { clicks: 1, leads: 1, sales: 1, saleAmount: 300, conversions: 1 });

  lines.length = 0;
  assert.equal(await runErase({ config: t.config, database: t.database, click: clicks[1]!, out: (l) => lines.push(l) }), 0);
  assert.deepEqual(lines, [`click ${clicks[1]}: erased 1 click, 1 lead, 1 sale`]);
  assert.deepEqual(await figures(linkId), { clicks: 0, leads: 0, sales: 0, saleAmount: 0, conversions: 0 });
  await assert.rejects(runErase({ config: t.config, database: t.database, ip: 'not-an-ip', out: () => undefined }), /not an IP address/);
  await assert.rejects(runErase({ config: t.config, database: t.database, out: () => undefined }), /exactly one of/);
});

test('the CLI parses erase and prints the counts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-erase-'));
  const lines: string[] = [];
  try {
    const env = { DATABASE_URL: `file:${join(dir, 'cli.db')}` };
    assert.equal(await runCli(['erase', '--ip', '2001:db8:1:2::5'], (l) => lines.push(l), env), 0);
    assert.deepEqual(lines, ['ip 2001:db8:1::: erased 0 clicks, 0 leads, 0 sales', 'ip 2001:db8:1:2::5: erased 0 clicks, 0 leads, 0 sales']);
    assert.equal(await runCli(['erase'], () => undefined, env), 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pure parts: stored forms of an address, per-link totals of erased events, the report line', () => {
  assert.deepEqual(storedForms('203.0.113.7', 'anonymized'), ['203.0.113.0', '203.0.113.7']);
  assert.deepEqual(storedForms('::ffff:203.0.113.7', 'full'), ['203.0.113.7']);
  assert.deepEqual(storedForms('203.0.113.0', 'anonymized'), ['203.0.113.0']);
  assert.throws(() => storedForms('', 'anonymized'), /not an IP address/);
  assert.deepEqual(
    erasedTotals([
      { workspace_id: 'w', link_id: 'a', kind: 'click', amount: 0 },
      { workspace_id: 'w', link_id: 'a', kind: 'sale', amount: 500 },
      { workspace_id: 'w', link_id: 'b', kind: 'lead', amount: 0 },
    ]),
    [
      { workspaceId: 'w', linkId: 'a', clicks: 1, leads: 0, sales: 1, saleAmount: 500 },
      { workspaceId: 'w', linkId: 'b', clicks: 0, leads: 1, sales: 0, saleAmount: 0 },
    ],
  );
  assert.match(describeErased('ip x', { clicks: 1, leads: 0, sales: 2, pending: 3 }), /^ip x: erased 1 click, 0 leads, 2 sales; 3 clicks too recent/);
});

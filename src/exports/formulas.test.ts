/**
 * Every CSV the service writes neutralises spreadsheet formulas (issue 26, class 4), whoever wrote
 * the text: a member (link title, description, comments), an anonymous visitor (the `Referer` of a
 * click), the customer's app (customer name and external id, event name, invoice id). The CSV
 * routes are enumerated (a new `…/export` route fails the first test until it is listed here):
 * the API's three exports, the dashboard's three downloads and `waymark export`. In each file no
 * cell begins with `=`, `+`, `-`, `@`, a tab or a carriage return, and each hostile value is there
 * with its `'`. A links export imported again gives back the values it was made of.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit } from '../redirect/testing.js';
import { addUser, logIn, slugOf, type Browser } from '../dashboard/testing.js';
import { runExport } from '../cli/export.js';
import { GROUP_BYS } from '../analytics/schema.js';

const FORMULA_START = /^[=+\-@\t\r]/;
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
/** One formula per leading character. */
const PAYLOADS = ['=HYPERLINK("https://evil.example","x")', '+cmd|\' /C calc\'!A0', '-2+3+cmd|\' /C calc\'!A0', '@SUM(1+1)*cmd|\' /C calc\'!A0', '\t=1+1', '\r=1+1'];
/** Referer hosts a URL parser accepts that begin with a formula character (`@`, tab and CR cannot begin a host). */
const REFERER_HOSTS = ['=1+1', '-2+3.example', '+cmd.example'];
/** Trimmed by the tracking schema, so without tab and CR. */
const TRIMMED = PAYLOADS.slice(0, 4);

let t: TestApp;
let browser: Browser;
let slug: string;
const links: { id: string; title: string; description: string; comments: string }[] = [];

before(async () => {
  t = await createTestApp({ config: { eventsUrl: 'sql' } });
  const base = await t.listen();
  for (let i = 0; i < PAYLOADS.length; i++) {
    const fields = { title: PAYLOADS[i]!, description: PAYLOADS[(i + 1) % 6]!, comments: PAYLOADS[(i + 2) % 6]! };
    const res = await t.inject({ method: 'POST', url: '/links', payload: { url: `https://example.com/${i}`, key: `f${i}`, trackConversion: true, ...fields } });
    assert.equal(res.statusCode, 200, res.body);
    const link = res.json();
    assert.equal(link.title, fields.title, 'the title is stored as sent');
    links.push({ id: link.id, ...fields });
    // An anonymous visitor's click, with a referer of its choosing.
    const click = await hit(base, `/f${i}`, { host: link.domain, headers: { 'user-agent': CHROME, referer: `https://${REFERER_HOSTS[i % 3]}/page?q=${i}` } });
    assert.equal(click.status, 302);
    const clickId = new URL(click.location!).searchParams.get(t.config.clickIdParam)!;
    const p = TRIMMED[i % 4]!;
    const lead = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: p, customerExternalId: `${p} ${i}`, customerName: TRIMMED[(i + 1) % 4], mode: 'wait' } });
    assert.equal(lead.statusCode, 200, lead.body);
    const sale = await t.inject({ method: 'POST', url: '/track/sale', payload: { customerExternalId: `${p} ${i}`, amount: 100 + i, invoiceId: TRIMMED[(i + 2) % 4] + ` ${i}`, eventName: TRIMMED[(i + 3) % 4] } });
    assert.equal(sale.statusCode, 200, sale.body);
  }
  await t.modules.tracking.queue.drain();
  browser = await logIn(t, await addUser(t, 'owner'));
  slug = await slugOf(t);
});
after(() => t.close());

/** Every CSV of the API and the dashboard: [name, fetch the body]. */
function httpCsvs(): [string, () => Promise<string>][] {
  const out: [string, () => Promise<string>][] = [];
  const queries: [string, string][] = [
    ['links', ''],
    ...(['clicks', 'leads', 'sales'] as const).map((e): [string, string] => ['events', `event=${e}&interval=all`]),
    ...GROUP_BYS.map((g): [string, string] => ['analytics', `groupBy=${g}&interval=all&event=composite`]),
  ];
  for (const [what, q] of queries) {
    out.push([`GET /${what}/export?${q}`, async () => ok(await t.inject({ method: 'GET', url: `/${what}/export?${q}` }))]);
    out.push([`dashboard ${what}/export?${q}`, async () => ok(await browser.get(`/dashboard/w/${slug}/${what}/export?${q}`))]);
  }
  return out;
}

function ok(res: { statusCode: number; body: string; headers: Record<string, unknown> }): string {
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/csv/);
  return res.body;
}

async function cli(argv: string[]): Promise<string> {
  const chunks: Buffer[] = [];
  const stdout = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk);
      done();
    },
  });
  assert.equal(await runExport({ argv: [...argv, '-w', t.workspaceId], config: t.config, database: t.database, stdout }), 0);
  return Buffer.concat(chunks).toString('utf8');
}

/** Asserts that no cell of the CSV begins a formula; returns its cells. */
function checkedCells(name: string, body: string): Set<string> {
  const rows = parse(body, { relax_column_count: false }) as string[][];
  assert.ok(rows.length >= 1, name);
  const cells = new Set<string>();
  for (const row of rows) {
    for (const cell of row) {
      assert.doesNotMatch(cell, FORMULA_START, `${name}: ${JSON.stringify(cell)}`);
      cells.add(cell);
    }
  }
  return cells;
}

const neutral = (s: string) => `'${s}`;

test('the CSV routes are the ones this suite checks', () => {
  const csvRoutes = t.routes.filter((r) => r.method === 'GET' && r.url.endsWith('/export')).map((r) => r.url).sort();
  assert.deepEqual(csvRoutes, ['/analytics/export', '/dashboard/w/:slug/analytics/export', '/dashboard/w/:slug/events/export', '/dashboard/w/:slug/links/export', '/events/export', '/links/export']);
});

test('no cell of any API or dashboard CSV begins a formula', async () => {
  const checked = httpCsvs();
  assert.equal(checked.length, 2 * (1 + 3 + GROUP_BYS.length));
  for (const [name, fetch] of checked) checkedCells(name, await fetch());
});

test('the hostile values are in the files, neutralised', async () => {
  const linksCsv = checkedCells('links', ok(await t.inject({ method: 'GET', url: '/links/export' })));
  for (const p of PAYLOADS) assert.ok(linksCsv.has(neutral(p)), `links export: ${JSON.stringify(p)}`);

  const clicks = checkedCells('clicks', ok(await t.inject({ method: 'GET', url: '/events/export?event=clicks&interval=all' })));
  for (const h of REFERER_HOSTS) assert.ok(clicks.has(neutral(h)), `click referer ${h}`);

  const sales = checkedCells('sales', ok(await t.inject({ method: 'GET', url: '/events/export?event=sales&interval=all' })));
  for (const p of TRIMMED) {
    assert.ok(sales.has(neutral(p)), `event or customer name ${JSON.stringify(p)}`);
    assert.ok([...sales].some((c) => c.startsWith(neutral(`${p} `))), `customer external id or invoice id ${JSON.stringify(p)}`);
  }
  // Amounts are numbers, written as numbers.
  const [header, ...rows] = parse(ok(await t.inject({ method: 'GET', url: '/events/export?event=sales&interval=all' }))) as string[][];
  const amount = header!.indexOf('sale.amount');
  assert.deepEqual(rows.map((r) => r[amount]).sort(), ['100', '101', '102', '103', '104', '105']);

  const referers = checkedCells('referers', ok(await t.inject({ method: 'GET', url: '/analytics/export?groupBy=referers&interval=all' })));
  for (const h of REFERER_HOSTS) assert.ok(referers.has(neutral(h)), `analytics referer ${h}`);
  const top = checkedCells('top links', ok(await t.inject({ method: 'GET', url: '/analytics/export?groupBy=top_links&interval=all' })));
  for (const l of links) assert.ok(top.has(neutral(l.title)) && top.has(neutral(l.comments)), `top link ${l.id}`);
});

test('waymark export writes the same neutralised files', async () => {
  const files: [string, string[]][] = [
    ['links', ['links']],
    ['clicks', ['events', '--event', 'clicks', '--query', 'interval=all']],
    ['sales', ['events', '--event', 'sales', '--query', 'interval=all']],
    ['referers', ['analytics', '--query', 'groupBy=referers&interval=all']],
  ];
  for (const [name, argv] of files) {
    const cells = checkedCells(`cli ${name}`, await cli(argv));
    assert.ok([...cells].some((c) => c.startsWith("'")), `cli ${name} holds neutralised cells`);
  }
});

test('a links export imported again gives back the exact values', async () => {
  const file = ok(await t.inject({ method: 'GET', url: '/links/export?sortOrder=asc' }));
  for (const l of links) assert.equal((await t.inject({ method: 'DELETE', url: `/links/${l.id}` })).statusCode, 200);
  const res = await t.inject({ method: 'POST', url: '/links/import', headers: { 'content-type': 'text/csv' }, payload: file });
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().counts, { rows: links.length, created: links.length, skipped: 0, rejected: 0 });
  const imported = (await t.inject({ method: 'GET', url: '/links?pageSize=100&sortOrder=asc' })).json() as { key: string; title: string; description: string }[];
  for (const [i, l] of links.entries()) {
    const back = imported.find((x) => x.key === `f${i}`)!;
    // Exact, tab and CR included: the cell begins with the quote, so the importer's trim keeps them.
    assert.equal(back.title, l.title, `title of f${i}`);
    assert.equal(back.description, l.description, `description of f${i}`);
  }
});

/**
 * The upgrade from the SQL store to the column store (to-column-store.ts): a database filled through the
 * SQL store answers every grouping of `/analytics` (and the event lists) the same before and after
 * the move, which happens when an app starts with `EVENTS_URL=duckdb…` on it; a move interrupted
 * after every batch (and by a failure) loses nothing. Runs on SQLite and PostgreSQL metadata.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp } from '../../app.js';
import { createTestApp, type TestApp } from '../../test-support/harness.js';
import { insertLink } from '../../redirect/testing.js';
import { GROUP_BYS } from '../../analytics/schema.js';
import { contractEvent } from '../contract.js';
import type { StoredEvent } from '../event-store.js';
import { openDuckDbEngine } from '../duckdb/duckdb-engine.js';
import { upgradeToColumnStore, type UpgradeStateTable } from './to-column-store.js';
import { insertEvents } from '../sql/event-writer.js';

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const START = new Date(today - 9 * DAY).toISOString();
const END = new Date(today - DAY).toISOString();

interface Filled {
  headers: Record<string, Record<string, string>>;
  folderId: string;
  disabledId: string;
  counts: { clicks: number; leads: number; sales: number };
}

/** Two workspaces, links in and out of a folder, a disabled one; clicks, leads and sales over five days, through the SQL store. */
async function fill(t: TestApp): Promise<Filled> {
  const b = await t.addWorkspace();
  const folder = await t.inject({ method: 'POST', url: '/folders', payload: { name: 'Spring' } });
  assert.equal(folder.statusCode, 201, folder.body);
  const folderId = folder.json().id as string;
  const db = t.database.db;
  const links = [
    { ws: t.workspaceId, id: 'lnk_up_a1', folder_id: null, disabled_at: null },
    { ws: t.workspaceId, id: 'lnk_up_a2', folder_id: null, disabled_at: null },
    { ws: t.workspaceId, id: 'lnk_up_fold', folder_id: folderId, disabled_at: null },
    { ws: t.workspaceId, id: 'lnk_up_off', folder_id: null, disabled_at: Date.now() },
    { ws: b.workspaceId, id: 'lnk_up_b1', folder_id: null, disabled_at: null },
  ];
  for (const l of links) {
    await insertLink(db, l.ws, { id: l.id, domain: 'wm.test', key: l.id, url: `https://example.com/${l.id}?ref=up`, folder_id: l.folder_id, disabled_at: l.disabled_at });
  }
  const countries = [['US', 'NA', 'US-TX', 'Austin'], ['DE', 'EU', 'DE-BE', 'Berlin'], ['JP', 'AS', 'JP-13', 'Tokyo']] as const;
  const devices = [['Desktop', 'Chrome', 'Mac OS'], ['Mobile', 'Safari', 'iOS'], ['Tablet', 'Firefox', 'Android']] as const;
  const rows: StoredEvent[] = [];
  const counts = { clicks: 0, leads: 0, sales: 0 };
  let n = 0;
  for (let day = 2; day <= 6; day++) {
    for (const l of links) {
      for (let i = 0; i < 3 + (day % 3); i++) {
        n++;
        const [country, continent, region, city] = countries[n % 3]!;
        const [device, browser, os] = devices[(n >> 1) % 3]!;
        const ts = today - day * DAY + (n % 24) * 3_600_000 + n * 1000;
        const dims = {
          timestamp: ts, country, continent, region, city, device, browser, os,
          url: `https://example.com/${l.id}?ref=up`, trigger: n % 4 ? 'link' : 'qr',
          referer: n % 2 ? 'google.com' : '(direct)', referer_url: n % 2 ? `https://google.com/search?q=${n}` : '(direct)',
          utm_source: n % 3 ? 'news' : null, utm_medium: n % 5 ? 'email' : null, utm_campaign: n % 2 ? 'spring' : null, utm_term: null, utm_content: n % 7 ? null : 'banner',
        };
        const click = contractEvent(l.ws, l.id, { ...dims, id: `clk_up_${String(n).padStart(4, '0')}`, click_id: `clk_up_${String(n).padStart(4, '0')}` });
        rows.push(click);
        counts.clicks++;
        if (n % 3 === 0) {
          rows.push(contractEvent(l.ws, l.id, { ...dims, kind: 'lead', timestamp: ts + 10, click_id: click.click_id, customer_id: `cus_up_${n}`, event_name: 'Sign up' }));
          counts.leads++;
          if (n % 2 === 0) {
            rows.push(contractEvent(l.ws, l.id, {
              ...dims, kind: 'sale', timestamp: ts + 20, click_id: click.click_id, customer_id: `cus_up_${n}`, event_name: 'Purchase',
              amount: 1000 + n, currency: 'usd', invoice_id: `in_up_${n}`, payment_processor: 'stripe', sale_type: n % 4 ? 'new' : 'recurring',
            }));
            counts.sales++;
          }
        }
      }
    }
  }
  await t.ctx.events.append(rows);
  return { headers: { a: t.headers, b: b.headers }, folderId, disabledId: 'lnk_up_off', counts };
}

type Injector = (opts: { method: 'GET'; url: string; headers: Record<string, string> }) => Promise<{ statusCode: number; body: string }>;

/** Every grouping of every event type in both workspaces, with link, dimension and zone variants, and the event lists. */
async function answers(inject: Injector, f: Filled): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const range = `start=${encodeURIComponent(START)}&end=${encodeURIComponent(END)}`;
  const urls: [string, string][] = [];
  for (const ws of ['a', 'b']) {
    for (const event of ['clicks', 'leads', 'sales', 'composite']) {
      for (const groupBy of GROUP_BYS) urls.push([ws, `/analytics?event=${event}&groupBy=${groupBy}&${range}`]);
    }
    for (const event of ['clicks', 'leads', 'sales']) urls.push([ws, `/events?event=${event}&${range}&limit=100`]);
  }
  for (const filter of [`folderId=${f.folderId}`, `linkId=${f.disabledId}`, 'country=US', 'device=mobile&utm_source=news', 'timezone=America/New_York', 'saleType=new']) {
    for (const groupBy of GROUP_BYS) urls.push(['a', `/analytics?event=composite&groupBy=${groupBy}&${range}&${filter}`]);
  }
  for (const [ws, url] of urls) {
    const res = await inject({ method: 'GET', url, headers: f.headers[ws]! });
    out.set(`${ws} ${url}`, `${res.statusCode} ${res.body}`);
  }
  return out;
}

function assertSame(before: Map<string, string>, after: Map<string, string>): void {
  assert.equal(after.size, before.size);
  let answered = 0;
  for (const [key, value] of before) {
    assert.equal(after.get(key), value, key);
    if (value.startsWith('200 ') && value !== '200 []') answered++;
  }
  // The comparison means something only if most requests answer with data.
  assert.ok(answered > before.size / 2, `${answered} of ${before.size} answered with data`);
}

/** An app on the same database with the column store selected (the upgrade runs as it is built); its log lines. */
async function startColumnApp(t: TestApp, eventsUrl: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  const built = await buildApp({ config: { ...t.config, eventsUrl }, database: t.database, logger: { level: 'info', stream } });
  return { ...built, lines, inject: ((opts) => built.app.inject(opts)) as Injector };
}

async function sqlLeft(t: TestApp): Promise<Record<string, number>> {
  const rows = await t.database.db.selectFrom('events').select(['kind', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('kind').execute();
  return Object.fromEntries(rows.map((r) => [r.kind, Number(r.n)]));
}

test('upgrade at start: every grouping and event list answers the same after the SQL store\'s events moved into DuckDB', async () => {
  const t = await createTestApp();
  try {
    const f = await fill(t);
    const before = await answers((o) => t.app.inject(o), f);
    const column = await startColumnApp(t, 'duckdb::memory:');
    try {
      assertSame(before, await answers(column.inject, f));
      assert.deepEqual(await sqlLeft(t), { lead: f.counts.leads, sale: f.counts.sales }, 'the clicks left the SQL events table; leads and sales stay');
      const messages = column.lines.map((l) => String(l.msg));
      assert.ok(messages.includes('moving the SQL event log into the column store'), messages.join('\n'));
      const perKind = column.lines.filter((l) => l.msg === 'events per workspace and kind');
      assert.equal(perKind.reduce((s, l) => s + Number(l.sql), 0), f.counts.clicks + f.counts.leads + f.counts.sales);
      assert.ok(perKind.every((l) => l.sql === l.column), 'counts equal per workspace and kind');
      const done = column.lines.find((l) => String(l.msg).startsWith('the SQL event log is in the column store'));
      assert.deepEqual([done?.copied, done?.dropped], [f.counts.clicks + f.counts.leads + f.counts.sales, f.counts.clicks]);
    } finally {
      await column.app.close();
    }
  } finally {
    await t.close();
  }
});

test('an upgrade interrupted after every batch, and by a failure, finishes at the next start with nothing lost', async () => {
  const t = await createTestApp();
  const dir = mkdtempSync(join(tmpdir(), 'wm-upgrade-'));
  const path = join(dir, 'events.duckdb');
  try {
    const f = await fill(t);
    const total = f.counts.clicks + f.counts.leads + f.counts.sales;
    const before = await answers((o) => t.app.inject(o), f);
    const state = () => t.database.db.withTables<{ column_store_upgrade: UpgradeStateTable }>().selectFrom('column_store_upgrade').selectAll().executeTakeFirstOrThrow();

    let engine = await openDuckDbEngine({ path });
    const first = await upgradeToColumnStore({ db: t.database.db, engine, batch: 13, maxBatches: 2 });
    assert.deepEqual([first.outcome, first.copied], ['partial', 26]);
    assert.deepEqual(await sqlLeft(t), { click: f.counts.clicks, lead: f.counts.leads, sale: f.counts.sales }, 'nothing dropped while copying');

    // A failure in the middle of a run (the process dying there is the same: the cursor was not advanced).
    let appends = 0;
    // Both ways in fail the third time: rows by value (any engine) and named batches (DuckDB's way in the upgrade).
    const failing = {
      ...engine,
      append: (rows: readonly StoredEvent[]) => (++appends === 3 ? Promise.reject(new Error('injected')) : engine.append(rows)),
      appendOnce: (name: string, rows: readonly StoredEvent[]) => (++appends === 3 ? Promise.reject(new Error('injected')) : engine.appendOnce(name, rows)),
    };
    await assert.rejects(upgradeToColumnStore({ db: t.database.db, engine: failing, batch: 13 }), /injected/);
    assert.equal(Number((await state()).copied), 26 + 2 * 13, 'the cursor stands after the last batch that was checked');

    // One batch per run until some clicks are dropped, then the engine closes as a process would.
    let runs = 0;
    while ((await state()).phase !== 'drop' || Number((await state()).dropped) === 0) {
      assert.equal((await upgradeToColumnStore({ db: t.database.db, engine, batch: 13, maxBatches: 1 })).outcome, 'partial');
      assert.ok(++runs < 100);
    }
    const dropped = Number((await state()).dropped);
    assert.ok(dropped > 0 && dropped < f.counts.clicks);
    assert.equal((await sqlLeft(t)).click, f.counts.clicks - dropped);
    await engine.close();
    // A click written after the copy (outside the compared range): it reaches the column store too.
    const straggler = contractEvent(t.workspaceId, 'lnk_up_a1', { id: 'clk_up_straggler', click_id: 'clk_up_straggler', timestamp: today - 20 * DAY });
    await t.database.db.transaction().execute((trx) => insertEvents(trx, [straggler], new Map(), t.database.dialect));

    // The next start (EVENTS_URL=duckdb:<path>) finishes the move.
    const column = await startColumnApp(t, `duckdb:${path}`);
    try {
      assert.ok(column.lines.some((l) => l.msg === 'resuming the move of the SQL event log into the column store' && l.phase === 'drop'));
      assertSame(before, await answers(column.inject, f));
      assert.deepEqual(await sqlLeft(t), { lead: f.counts.leads, sale: f.counts.sales });
      const s = await state();
      assert.deepEqual([s.phase, Number(s.copied)], ['done', total]);
      // The straggler is dropped by the upgrade when it sorts after the drop's cursor, else moved by the store's catch-up at open.
      assert.ok([f.counts.clicks, f.counts.clicks + 1].includes(Number(s.dropped)), String(s.dropped));
      assert.equal((await column.ctx.events.findClick(t.workspaceId, 'clk_up_straggler'))?.link_id, 'lnk_up_a1');
    } finally {
      await column.app.close();
    }
    // A later start has nothing to do.
    engine = await openDuckDbEngine({ path });
    try {
      assert.equal((await upgradeToColumnStore({ db: t.database.db, engine })).outcome, 'done');
    } finally {
      await engine.close();
    }
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

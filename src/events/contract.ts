/**
 * What the `EventLog` and the `ConversionStore` promise together, as one suite that each engine
 * runs against itself, through the log's client over the port as the app reaches it
 * (sql/store.test.ts on SQLite and PostgreSQL, duckdb/store.test.ts, clickhouse/store.test.ts).
 * An implementation is handed in through a fixture: the log, the conversion store, a way to
 * create links and workspaces (a store resolves link filters against them), and a transaction
 * to join. Expected figures are computed here in plain
 * JavaScript from the appended rows, independently of any store.
 *
 * @example
 * describeEventStoreContract('sql', async () => ({ log, conversions, addWorkspace, addLink, transaction, close }));
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AggregateSpec, ConversionStore, DimColumn, EventKind, EventLog, EventRow, LinkScope, MergedRow, StoredEvent } from './event-store.js';
import { buildScope, MAX_INLINE_IDS } from './link-scope.js';
import { clickEvent, conversionEvent } from './rows.js';
import { columnsOf } from './batch/wide-rows.js';
import { creditContract } from './contract-credits.js';

export interface ContractLink {
  id: string;
  domain: string;
  key: string;
  folderId?: string | null;
  disabled?: boolean;
}

export interface EventStoreFixture<Tx> {
  /** The log, as the main thread reaches it (the client over the port). */
  log: EventLog;
  /** The metadata share, joined to `transaction`'s writes. */
  conversions: ConversionStore<Tx>;
  /** A new workspace; returns its id. */
  addWorkspace(): Promise<string>;
  addLink(workspaceId: string, link: ContractLink): Promise<void>;
  deleteLink(workspaceId: string, linkId: string): Promise<void>;
  /** Runs `fn` in a write the store can join; a throw rolls it back. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Makes appended clicks countable by aggregates (a store that folds clicks later folds them now). */
  settle?(): Promise<void>;
  close(): Promise<void>;
}

const T0 = Date.parse('2025-03-10T00:00:00.000Z');
const H = 3_600_000;

let seq = 0;
const uid = (prefix: string) => `${prefix}_${(++seq).toString(36).padStart(4, '0')}_${Math.random().toString(36).slice(2, 8)}`;

/** A complete event row (a click, or a lead or sale on a click of its own); `over` sets what the case is about. */
export function contractEvent(workspaceId: string, linkId: string, over: Partial<StoredEvent> & { kind?: EventKind } = {}): StoredEvent {
  const converts = over.kind === 'lead' || over.kind === 'sale';
  const click = clickEvent({
    workspace_id: workspaceId,
    timestamp: T0,
    id: converts ? uid('clk') : (over.id ?? uid('clk')),
    link_id: linkId,
    domain: 'wm.test',
    key: linkId,
    url: 'https://example.com/landing?ref=contract',
    country: 'US',
    city: 'Austin',
    region: 'US-TX',
    continent: 'NA',
    device: 'Desktop',
    browser: 'Chrome',
    os: 'Linux',
    referer: '(direct)',
    referer_url: '(direct)',
    trigger: 'link',
    ip: '203.0.113.7',
    ua: 'Mozilla/5.0',
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    utm_term: null,
    utm_content: null,
  });
  if (!converts) return { ...click, ...over };
  const event = conversionEvent(click, { kind: over.kind as 'lead' | 'sale', workspace_id: workspaceId, timestamp: T0, id: over.id ?? uid('evt'), customer_id: null, event_name: null });
  return { ...event, ...over };
}

function spec(workspaceId: string, scope: LinkScope, over: Partial<AggregateSpec> = {}): AggregateSpec {
  return { workspaceId, kinds: ['click', 'lead', 'sale'], group: [], timeseries: false, dims: [], conversions: {}, scope, ...over };
}

const workspaceScope = (workspaceId: string) => buildScope({ workspaceId, links: {}, named: false });

/** The oracle: the same grouping computed from the rows in memory. */
function expected(rows: readonly StoredEvent[], kinds: readonly EventKind[], group: readonly DimColumn[], keep: (r: StoredEvent) => boolean = () => true) {
  const out = new Map<string, { clicks: number; leads: number; sales: number; sale_amount: number }>();
  for (const r of rows) {
    if (!kinds.includes(r.kind) || !keep(r)) continue;
    const k = group.map((c) => String((r as unknown as Record<string, unknown>)[c] ?? '')).join('|');
    const m = out.get(k) ?? { clicks: 0, leads: 0, sales: 0, sale_amount: 0 };
    if (r.kind === 'click') m.clicks++;
    if (r.kind === 'lead') m.leads++;
    if (r.kind === 'sale') {
      // A negative sale is a refund (integrations/refunds.ts): revenue, not a sale.
      if (r.amount >= 0) m.sales++;
      m.sale_amount += r.amount;
    }
    out.set(k, m);
  }
  return out;
}

/**
 * The store's rows as the oracle's map. Only the metrics of the asked kinds are promised (a store
 * may fill the others, e.g. from a rollup that holds them all), so the others read as zero.
 */
function actual(rows: readonly MergedRow[], kinds: readonly EventKind[] = ['click', 'lead', 'sale']) {
  const out = new Map<string, { clicks: number; leads: number; sales: number; sale_amount: number }>();
  const has = (k: EventKind) => kinds.includes(k);
  for (const r of rows) {
    const m = {
      clicks: has('click') ? Number(r.clicks) : 0,
      leads: has('lead') ? Number(r.leads) : 0,
      sales: has('sale') ? Number(r.sales) : 0,
      sale_amount: has('sale') ? Number(r.sale_amount) : 0,
    };
    if (!m.clicks && !m.leads && !m.sales && !m.sale_amount) continue;
    out.set(r.g.join('|'), m);
  }
  return out;
}

const sorted = <T>(m: Map<string, T>) => new Map([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function describeEventStoreContract<Tx>(name: string, open: () => Promise<EventStoreFixture<Tx>>): void {
  describe(`event log contract: ${name}`, () => {
    let f: EventStoreFixture<Tx>;
    let ws: string;
    let other: string;
    // Every event appended so far (tests run in order and add theirs): the oracle's input.
    const rows: StoredEvent[] = [];
    const range = { from: T0 - 24 * H, to: T0 + 48 * H };

    before(async () => {
      f = await open();
      ws = await f.addWorkspace();
      other = await f.addWorkspace();
      await f.addLink(ws, { id: 'lnk_a', domain: 'wm.test', key: 'a' });
      await f.addLink(ws, { id: 'lnk_b', domain: 'wm.test', key: 'b' });
      await f.addLink(ws, { id: 'lnk_off', domain: 'wm.test', key: 'off', disabled: true });
      await f.addLink(ws, { id: 'lnk_gone', domain: 'wm.test', key: 'gone' });
      await f.addLink(other, { id: 'lnk_other', domain: 'other.test', key: 'o' });
      const countries = ['US', 'DE', 'FR', 'US', 'GB', 'US'];
      const devices = ['Desktop', 'Mobile', 'Desktop', 'Tablet', 'Mobile', 'Desktop'];
      for (let i = 0; i < 24; i++) {
        rows.push(
          contractEvent(ws, i % 3 === 0 ? 'lnk_b' : 'lnk_a', {
            timestamp: T0 + i * H + (i % 5) * 1000,
            country: countries[i % 6]!,
            device: devices[i % 6]!,
            trigger: i % 4 === 0 ? 'qr' : 'link',
            utm_source: i % 2 ? 'newsletter' : null,
          }),
        );
      }
      rows.push(contractEvent(ws, 'lnk_off', { timestamp: T0 + 2 * H }));
      rows.push(contractEvent(ws, 'lnk_gone', { timestamp: T0 + 3 * H }));
      rows.push(contractEvent(other, 'lnk_other', { timestamp: T0 + 4 * H, country: 'US' }));
      const attributed = rows[1]!;
      rows.push(contractEvent(ws, attributed.link_id, { kind: 'lead', timestamp: T0 + 5 * H, click_id: attributed.click_id, customer_id: 'cus_1', event_name: 'Sign up' }));
      rows.push(contractEvent(ws, 'lnk_a', { kind: 'lead', timestamp: T0 + 6 * H, customer_id: 'cus_1', event_name: 'Trial' }));
      rows.push(contractEvent(ws, 'lnk_b', { kind: 'lead', timestamp: T0 + 7 * H, customer_id: 'cus_2', event_name: 'Sign up' }));
      rows.push(contractEvent(ws, 'lnk_a', { kind: 'sale', timestamp: T0 + 8 * H, customer_id: 'cus_1', amount: 5000, invoice_id: 'inv_1', sale_type: 'new', event_name: 'Purchase' }));
      rows.push(contractEvent(ws, 'lnk_a', { kind: 'sale', timestamp: T0 + 9 * H, customer_id: 'cus_1', amount: 2500, invoice_id: null, sale_type: 'recurring', event_name: 'Purchase' }));
      rows.push(contractEvent(ws, 'lnk_b', { kind: 'sale', timestamp: T0 + 10 * H, customer_id: 'cus_2', amount: 999, invoice_id: 'inv_2', sale_type: 'new', event_name: 'Purchase' }));
      rows.push(contractEvent(ws, 'lnk_a', { kind: 'sale', timestamp: T0 + 11 * H, customer_id: 'cus_1', amount: -1000, original_amount: -1000, invoice_id: null, sale_type: 'new', event_name: 'Refund' }));
      // Three appends, as click flushes and track calls make them: totals add up across batches.
      await f.log.append(rows.slice(0, 10));
      await f.log.append(rows.slice(10, 27));
      await f.log.append(rows.slice(27));
      await f.settle?.();
    });
    after(() => f?.close());

    /** The rows a workspace-wide query counts: this workspace, links neither disabled nor deleted. */
    const counted = (r: StoredEvent) => r.workspace_id === ws && r.link_id !== 'lnk_off';

    test('counts per grouping over the whole workspace are exact (disabled links left out)', async () => {
      for (const group of [[], ['country'], ['device'], ['country', 'device'], ['trigger'], ['link_id'], ['utm_source']] as DimColumn[][]) {
        for (const kinds of [['click'], ['lead'], ['sale'], ['click', 'lead', 'sale']] as EventKind[][]) {
          const got = await f.log.aggregate(spec(ws, workspaceScope(ws), { kinds, group }), range);
          assert.deepEqual(sorted(actual(got, kinds)), sorted(expected(rows, kinds, group, counted)), `group ${group.join(',') || 'count'}, kinds ${kinds.join(',')}`);
        }
      }
    });

    test('dimension, conversion and link filters select exactly their events', async () => {
      const cases: { spec: Partial<AggregateSpec>; keep: (r: StoredEvent) => boolean }[] = [
        { spec: { dims: [{ column: 'country', filter: { op: 'in', values: ['US', 'DE'] }, mode: 'exact' }] }, keep: (r) => ['US', 'DE'].includes(r.country) },
        { spec: { dims: [{ column: 'country', filter: { op: 'notIn', values: ['US'] }, mode: 'exact' }] }, keep: (r) => r.country !== 'US' },
        { spec: { dims: [{ column: 'device', filter: { op: 'in', values: ['mobile'] }, mode: 'ci' }] }, keep: (r) => r.device === 'Mobile' },
        // A customer's clicks are the clicks its leads were attributed to.
        { spec: { conversions: { customerId: 'cus_1' } }, keep: (r) => r.customer_id === 'cus_1' || (r.kind === 'click' && r.click_id === rows[1]!.click_id) },
        // The sale type narrows sales only.
        { spec: { conversions: { saleType: 'new' } }, keep: (r) => r.kind !== 'sale' || r.sale_type === 'new' },
      ];
      for (const c of cases) {
        const got = await f.log.aggregate(spec(ws, workspaceScope(ws), { group: ['country'], ...c.spec }), range);
        assert.deepEqual(sorted(actual(got)), sorted(expected(rows, ['click', 'lead', 'sale'], ['country'], (r) => counted(r) && c.keep(r))), JSON.stringify(c.spec));
      }
      const input = { workspaceId: ws, links: { ids: { op: 'in' as const, values: ['lnk_b', 'lnk_off'] } }, named: true };
      const ids = await f.log.scopeLinkIds(input, MAX_INLINE_IDS);
      assert.deepEqual([...ids].sort(), ['lnk_b', 'lnk_off'], 'links named by id count even when disabled');
      const got = await f.log.aggregate(spec(ws, buildScope(input, ids), { group: ['link_id'] }), range);
      assert.deepEqual(sorted(actual(got)), sorted(expected(rows, ['click', 'lead', 'sale'], ['link_id'], (r) => r.workspace_id === ws && ['lnk_b', 'lnk_off'].includes(r.link_id))));
      const none = await f.log.scopeLinkIds({ workspaceId: ws, links: { ids: { op: 'in', values: ['lnk_other'] } }, named: true }, MAX_INLINE_IDS);
      assert.deepEqual(none, [], "another workspace's link is never in a scope");
    });

    test("buyers' conversions: the sales an aggregate selects, and every lead and sale of their customers since the journey's start", async () => {
      // A buyer with a touch on a disabled link (left out of journeys) and the same customer id
      // in another workspace (never read).
      const extra = [
        contractEvent(ws, 'lnk_b', { kind: 'lead', timestamp: T0 + 4 * H, customer_id: 'cus_4', event_name: 'Sign up' }),
        contractEvent(ws, 'lnk_off', { kind: 'lead', timestamp: T0 + 5 * H, customer_id: 'cus_4', event_name: 'Sign up' }),
        contractEvent(ws, 'lnk_a', { kind: 'sale', timestamp: T0 + 12 * H, customer_id: 'cus_4', amount: 1200, invoice_id: null, sale_type: 'new', event_name: 'Purchase' }),
        contractEvent(other, 'lnk_other', { kind: 'lead', timestamp: T0 + 5 * H, customer_id: 'cus_4', event_name: 'Sign up' }),
      ];
      await f.log.append(extra);
      rows.push(...extra);
      await f.settle?.();
      const touch = (r: { kind: string; customer_id?: string | null; click_id: string; link_id: string; timestamp: number; amount?: number | null }, g: string[]) =>
        JSON.stringify([r.kind, r.customer_id ?? null, r.click_id, r.link_id, Number(r.timestamp), Number(r.amount ?? 0), g]);
      const group: DimColumn[] = ['country', 'utm_source'];
      const gOf = (r: StoredEvent) => group.map((c) => String((r as unknown as Record<string, unknown>)[c] ?? ''));
      const cases: { over: Partial<AggregateSpec>; keep: (r: StoredEvent) => boolean; since: number }[] = [
        { over: {}, keep: () => true, since: range.from },
        // Filters narrow the sales, never the journeys; the journey starts at `since`.
        { over: { conversions: { saleType: 'recurring' } }, keep: (r) => r.sale_type === 'recurring', since: T0 + 5 * H + 1 },
        { over: { dims: [{ column: 'country', filter: { op: 'in', values: ['XX'] }, mode: 'exact' }] }, keep: () => false, since: range.from },
      ];
      for (const c of cases) {
        const s = spec(ws, workspaceScope(ws), { kinds: ['click', 'lead', 'sale'], group, ...c.over });
        const got = await f.log.buyerConversions(s, range, c.since);
        const sales = rows.filter((r) => counted(r) && r.kind === 'sale' && r.timestamp >= range.from && r.timestamp < range.to && c.keep(r));
        const buyers = new Set(sales.map((r) => r.customer_id).filter((x) => x));
        const journeys = rows.filter((r) => r.workspace_id === ws && r.kind !== 'click' && buyers.has(r.customer_id) && r.link_id !== 'lnk_off' && r.timestamp >= c.since && r.timestamp < range.to);
        const label = JSON.stringify(c.over);
        assert.deepEqual(got.sales.map((r) => touch(r, r.g)).sort(), sales.map((r) => touch(r, gOf(r))).sort(), `sales ${label}`);
        assert.deepEqual(got.journeys.map((r) => touch(r, r.g)).sort(), journeys.map((r) => touch(r, gOf(r))).sort(), `journeys ${label}`);
        // The sales an aggregate of the same spec counts, to the cent.
        const [total] = await f.log.aggregate({ ...s, kinds: ['sale'], group: [] }, range);
        assert.equal(got.sales.reduce((sum, r) => sum + r.amount, 0), Number(total?.sale_amount ?? 0), `revenue ${label}`);
      }
      const all = await f.log.buyerConversions(spec(ws, workspaceScope(ws), { group: [] }), range, range.from);
      assert.ok(all.journeys.some((r) => r.customer_id === 'cus_4' && r.kind === 'lead'), "a buyer's lead is in its journey");
      assert.ok(!all.journeys.some((r) => r.link_id === 'lnk_off'), 'no touch on a disabled link');
      assert.ok(!all.journeys.some((r) => r.link_id === 'lnk_other'), "nothing of another workspace's customer of the same id");
      assert.ok(!all.journeys.some((r) => r.customer_id === 'cus_9'), 'only buyers');
    });

    test("credits: the journey read in the sale's write, a sale's rows replaced in it, one model aggregated by the touch's columns with the spec applied to the sale", () =>
      creditContract(f, spec, contractEvent));

    test('timeseries rows carry the slot each event counts in, and the range is half-open', async () => {
      const from = T0 + 2 * H;
      const to = T0 + 12 * H;
      const got = await f.log.aggregate(spec(ws, workspaceScope(ws), { kinds: ['click'], timeseries: true }), { from, to });
      const perHour = new Map<number, number>();
      for (const r of got) {
        assert.ok(r.slot !== undefined && r.slot >= from && r.slot < to, `slot ${r.slot} inside the range`);
        const hour = Math.floor(r.slot! / H) * H;
        perHour.set(hour, (perHour.get(hour) ?? 0) + Number(r.clicks));
      }
      const want = new Map<number, number>();
      for (const r of rows) {
        if (r.kind !== 'click' || !counted(r) || r.timestamp < from || r.timestamp >= to) continue;
        const hour = Math.floor(r.timestamp / H) * H;
        want.set(hour, (want.get(hour) ?? 0) + 1);
      }
      assert.deepEqual(sorted(new Map([...perHour].filter(([, n]) => n > 0).map(([k, v]) => [String(k), v]))), sorted(new Map([...want].map(([k, v]) => [String(k), v]))));
    });

    test('all time over months: the oldest-first page of one names the first event, and monthly slots add up to the count', async () => {
      // A workspace of its own (the other cases' oracle stays as it is): events over seven months
      // (after T0, past which no other case reaches: retention expires before it), with leads and sales among the clicks.
      const months = await f.addWorkspace();
      await f.addLink(months, { id: 'lnk_months', domain: 'months.test', key: 'm' });
      const D = 24 * H;
      const history: StoredEvent[] = [];
      for (let i = 0; i < 60; i++) history.push(contractEvent(months, 'lnk_months', { timestamp: T0 + 3 * D + i * 3.5 * D + (i % 7) * H }));
      for (let i = 0; i < 6; i++) history.push(contractEvent(months, 'lnk_months', { kind: 'lead', timestamp: T0 + 10 * D + i * 30 * D, customer_id: `cus_m${i}`, event_name: 'Sign up' }));
      for (let i = 0; i < 3; i++) history.push(contractEvent(months, 'lnk_months', { kind: 'sale', timestamp: T0 + 60 * D + i * 40 * D, customer_id: `cus_m${i}`, amount: 1000 * (i + 1), invoice_id: null, sale_type: 'new', event_name: 'Purchase' }));
      await f.log.append(history);
      await f.settle?.();
      const scope = workspaceScope(months);
      const now = T0 + 220 * D;
      const [first] = await f.log.page(spec(months, scope), { from: 0, to: now + 1 }, { order: 'asc', limit: 1, offset: 0 });
      const oldest = Math.min(...history.map((r) => r.timestamp));
      assert.equal(Number(first?.timestamp), oldest, 'the first event of the workspace');
      // Monthly boundaries from that event's month to now, as the analytics service asks them.
      const boundaries: number[] = [];
      const start = new Date(oldest);
      for (let m = 1; ; m++) {
        const b = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + m, 1);
        if (b >= now) break;
        boundaries.push(b);
      }
      const span = { from: Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()), to: now + 1 };
      const series = await f.log.aggregate(spec(months, scope, { timeseries: true }), span, boundaries);
      const sum = { clicks: 0, leads: 0, sales: 0, sale_amount: 0 };
      for (const r of series) {
        assert.ok(r.slot !== undefined && r.slot >= span.from && r.slot < span.to, `slot ${r.slot} inside the range`);
        sum.clicks += Number(r.clicks);
        sum.leads += Number(r.leads);
        sum.sales += Number(r.sales);
        sum.sale_amount += Number(r.sale_amount);
      }
      const [count] = await f.log.aggregate(spec(months, scope), span);
      assert.deepEqual(sum, { clicks: Number(count!.clicks), leads: Number(count!.leads), sales: Number(count!.sales), sale_amount: Number(count!.sale_amount) });
      assert.deepEqual(sum, { clicks: 60, leads: 6, sales: 3, sale_amount: 6000 }, 'every event counted once');
    });

    test('click ids: found in their workspace only, and reported as stored for a retried write', async () => {
      const click = rows[0]!;
      const found = await f.log.findClick(ws, click.click_id);
      assert.equal(found?.id, click.id);
      assert.equal(found?.link_id, click.link_id);
      assert.equal(Number(found?.timestamp), click.timestamp);
      assert.equal(await f.log.findClick(other, click.click_id), undefined, "another workspace's click is not found");
      const unknown = uid('clk');
      const stored = await f.log.existingClickIds([click.click_id, unknown, rows[1]!.click_id]);
      assert.deepEqual([...stored].sort(), [click.click_id, rows[1]!.click_id].sort());
    });

    test('click batches: stored once by batch id, visible to findClick and aggregates once appendClicks resolved', async () => {
      const before = actual(await f.log.aggregate(spec(ws, workspaceScope(ws), { kinds: ['click'] }), range), ['click']);
      const batchId = uid('batch');
      const batch = [contractEvent(ws, 'lnk_a', { timestamp: T0 + 12 * H }), contractEvent(ws, 'lnk_b', { timestamp: T0 + 12 * H + 1 }), contractEvent(ws, 'lnk_a', { timestamp: T0 + 12 * H + 2 })];
      await f.log.appendClicks(batchId, columnsOf(batch));
      rows.push(...batch);
      // Acknowledged means stored: no settle before these reads.
      for (const c of batch) assert.equal((await f.log.findClick(ws, c.click_id))?.id, c.id, 'visible once acknowledged');
      assert.deepEqual([...(await f.log.existingClickIds(batch.map((c) => c.click_id)))].sort(), batch.map((c) => c.click_id).sort());
      // The same batch again (a retry after a commit whose answer was lost) adds nothing, even
      // with other rows in it: the id decides.
      await f.log.appendClicks(batchId, columnsOf(batch));
      await f.log.appendClicks(batchId, columnsOf([contractEvent(ws, 'lnk_a', { timestamp: T0 + 12 * H + 3 })]));
      await f.settle?.();
      const after = actual(await f.log.aggregate(spec(ws, workspaceScope(ws), { kinds: ['click'] }), range), ['click']);
      assert.deepEqual(sorted(after), sorted(expected(rows, ['click'], [], counted)), 'each click counted once');
      assert.notDeepEqual(after, before);
      // Another batch id stores its own rows; an empty batch is stored and adds nothing.
      const next = [contractEvent(other, 'lnk_other', { timestamp: T0 + 12 * H + 4 })];
      await f.log.appendClicks(uid('batch'), columnsOf(next));
      rows.push(...next);
      await f.log.appendClicks(uid('batch'), columnsOf([]));
      assert.equal((await f.log.findClick(other, next[0]!.click_id))?.id, next[0]!.id);
      assert.equal(await f.log.findClick(ws, next[0]!.click_id), undefined, "another workspace's click is not found");
    });

    test('click batches are atomic: a refused batch leaves none of its rows, and its id may be stored again', async () => {
      const batchId = uid('batch');
      const good = contractEvent(ws, 'lnk_b', { timestamp: T0 + 13 * H });
      const broken = { ...contractEvent(ws, 'lnk_b', { timestamp: T0 + 13 * H + 1 }), link_id: null, workspace_id: null } as unknown as StoredEvent;
      await assert.rejects(f.log.appendClicks(batchId, columnsOf([good, broken])));
      assert.equal(await f.log.findClick(ws, good.click_id), undefined, 'nothing of the refused batch');
      assert.deepEqual(await f.log.existingClickIds([good.click_id]), []);
      await f.log.appendClicks(batchId, columnsOf([good]));
      rows.push(good);
      assert.equal((await f.log.findClick(ws, good.click_id))?.id, good.id, 'the id was not recorded by the refused attempt');
    });

    test('invoice ids: a second sale with a recorded invoice id fails its whole batch; another workspace may reuse it', async () => {
      const before = actual(await f.log.aggregate(spec(ws, workspaceScope(ws)), range));
      const click = contractEvent(ws, 'lnk_a', { timestamp: T0 + 11 * H });
      const dup = contractEvent(ws, 'lnk_a', { kind: 'sale', timestamp: T0 + 11 * H, customer_id: 'cus_3', amount: 100, invoice_id: 'inv_1', sale_type: 'new' });
      let failure: unknown;
      await f.log.append([click, dup]).catch((err) => (failure = err));
      assert.ok(failure, 'the batch was refused');
      assert.equal(f.conversions.isDuplicateInvoice(failure), true);
      assert.equal(await f.log.findClick(ws, click.click_id), undefined, 'nothing of the batch is visible');
      assert.deepEqual(actual(await f.log.aggregate(spec(ws, workspaceScope(ws)), range)), before, 'totals unchanged');
      assert.equal((await f.conversions.saleByInvoice(ws, 'inv_1'))?.amount, 5000, 'the first sale stands');

      const elsewhere = contractEvent(other, 'lnk_other', { kind: 'sale', timestamp: T0 + 11 * H, customer_id: 'cus_x', amount: 100, invoice_id: 'inv_1', sale_type: 'new' });
      await f.log.append([elsewhere]);
      rows.push(elsewhere);
      assert.equal((await f.conversions.saleByInvoice(other, 'inv_1'))?.id, elsewhere.id);
    });

    test('leads and sales joined to a write that rolls back leave nothing; those that commit are all visible; a click is refused', async () => {
      const batch = [
        contractEvent(ws, 'lnk_b', { kind: 'lead', timestamp: T0 + 30 * H, customer_id: 'cus_tx', event_name: 'Sign up' }),
        contractEvent(ws, 'lnk_b', { kind: 'lead', timestamp: T0 + 30 * H + 1, customer_id: 'cus_tx', event_name: 'Trial' }),
      ];
      const slice = { from: T0 + 30 * H, to: T0 + 31 * H };
      const leadsIn = async () => Number((await f.log.aggregate(spec(ws, workspaceScope(ws), { kinds: ['lead'] }), slice))[0]?.leads ?? 0);
      await assert.rejects(
        f.transaction(async (tx) => {
          await f.conversions.append(batch, tx);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      await f.conversions.afterCommit();
      assert.equal(await f.conversions.hasAnyLead(ws, 'cus_tx'), false);
      assert.equal(await leadsIn(), 0);
      await f.transaction((tx) => f.conversions.append(batch, tx));
      await f.conversions.afterCommit();
      rows.push(...batch);
      await f.settle?.();
      assert.equal((await f.conversions.latestLead(ws, 'cus_tx'))?.event_name, 'Trial');
      assert.equal(await leadsIn(), 2);
      // Clicks take the log's appendClicks, the one road that stores and counts them.
      const click = contractEvent(ws, 'lnk_b', { timestamp: T0 + 30 * H + 2 });
      await assert.rejects(f.transaction((tx) => f.conversions.append([click], tx)), /appendClicks/);
      assert.equal(await f.log.findClick(ws, click.click_id), undefined);
    });

    test('the event list pages in time order, ties broken by id, without events of deleted links', async () => {
      await f.deleteLink(ws, 'lnk_gone');
      const listed = (r: StoredEvent) => counted(r) && r.kind === 'click' && r.link_id !== 'lnk_gone' && r.timestamp < T0 + 24 * H;
      const want = rows.filter(listed).sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1)).map((r) => r.id);
      // Pages of the event list are of the workspace scope (disabled links included when named; here not).
      const s = spec(ws, workspaceScope(ws), { kinds: ['click'] });
      const window = { from: range.from, to: T0 + 24 * H };
      const got: string[] = [];
      for (let offset = 0; ; offset += 7) {
        const page: EventRow[] = await f.log.page(s, window, { order: 'desc', limit: 7, offset });
        got.push(...page.map((r) => r.id));
        if (page.length < 7) break;
      }
      assert.deepEqual(got, want);
      const asc = await f.log.page(s, window, { order: 'asc', limit: 3, offset: 0 });
      assert.deepEqual(asc.map((r) => r.id), [...want].reverse().slice(0, 3));
    });

    test('the event list pages by keyset too: after the last row of a page, in either order', async () => {
      const listed = (r: StoredEvent) => counted(r) && r.kind === 'click' && r.link_id !== 'lnk_gone' && r.timestamp < T0 + 24 * H;
      const want = rows.filter(listed).sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1)).map((r) => r.id);
      const s = spec(ws, workspaceScope(ws), { kinds: ['click'] });
      const window = { from: range.from, to: T0 + 24 * H };
      for (const order of ['desc', 'asc'] as const) {
        const got: string[] = [];
        let after: { timestamp: number; id: string } | undefined;
        for (;;) {
          const page: EventRow[] = await f.log.page(s, window, { order, limit: 4, offset: 0, after });
          got.push(...page.map((r) => r.id));
          if (page.length < 4) break;
          const last = page[page.length - 1]!;
          after = { timestamp: Number(last.timestamp), id: last.id };
        }
        assert.deepEqual(got, order === 'desc' ? want : [...want].reverse(), order);
      }
    });

    test('conversion look-ups: latest lead by name, lead names since, sales on a link', async () => {
      assert.equal((await f.conversions.latestLead(ws, 'cus_1'))?.event_name, 'Trial');
      assert.equal((await f.conversions.latestLead(ws, 'cus_1', 'Sign up'))?.event_name, 'Sign up');
      assert.equal(await f.conversions.latestLead(ws, 'cus_1', 'sign up'), undefined, 'event names are case-sensitive');
      assert.equal(await f.conversions.latestLead(other, 'cus_1'), undefined);
      assert.equal(await f.conversions.hasAnyLead(ws, 'cus_2'), true);
      assert.equal(await f.conversions.hasAnyLead(ws, 'cus_9'), false);
      assert.deepEqual((await f.conversions.leadNamesSince(ws, 'cus_1', T0)).sort(), ['Sign up', 'Trial']);
      assert.deepEqual(await f.conversions.leadNamesSince(ws, 'cus_1', T0 + 6 * H + 1), []);
      assert.equal(await f.conversions.hasSaleOnLink(ws, 'cus_1', 'lnk_a'), true);
      assert.equal(await f.conversions.hasSaleOnLink(ws, 'cus_1', 'lnk_b'), false);
    });

    test("erasing a customer's events and a link's events takes them out of every count", async () => {
      const all = () => f.log.aggregate(spec(ws, workspaceScope(ws), { group: ['link_id'] }), range);
      const removed = await f.transaction((tx) => f.conversions.forgetCustomer(ws, 'cus_2', tx));
      await f.conversions.afterCommit();
      assert.equal(removed, 2, "cus_2's lead and sale");
      assert.equal(await f.conversions.hasAnyLead(ws, 'cus_2'), false);
      assert.equal(await f.conversions.saleByInvoice(ws, 'inv_2'), undefined);
      const afterCustomer = actual(await all());
      const keep = (r: StoredEvent) => counted(r) && r.customer_id !== 'cus_2';
      assert.deepEqual(sorted(afterCustomer), sorted(expected(rows, ['click', 'lead', 'sale'], ['link_id'], keep)));

      const linkEvents = rows.filter((r) => r.workspace_id === ws && r.link_id === 'lnk_b' && r.customer_id !== 'cus_2').length;
      assert.equal(await f.log.forgetLinks(ws, ['lnk_b']), linkEvents, "lnk_b's remaining events");
      const afterLink = actual(await all());
      assert.equal(afterLink.has('lnk_b'), false);
      assert.deepEqual(afterLink.get('lnk_a'), expected(rows, ['click', 'lead', 'sale'], ['link_id'], (r) => keep(r) && r.link_id === 'lnk_a').get('lnk_a'));
      assert.equal(await f.log.forgetLinks(other, ['lnk_a']), 0, "a workspace cannot erase another's events");
    });

    test('erasing an address removes its clicks and the leads and sales that copied it, in every workspace', async () => {
      const ip = '192.0.2.0';
      const click = contractEvent(ws, 'lnk_a', { timestamp: T0 + 40 * H, ip });
      const lead = contractEvent(ws, 'lnk_a', { kind: 'lead', timestamp: T0 + 40 * H + 1, click_id: click.click_id, ip, customer_id: 'cus_ip', event_name: 'Sign up' });
      const sale = contractEvent(ws, 'lnk_a', { kind: 'sale', timestamp: T0 + 40 * H + 2, click_id: click.click_id, ip, customer_id: 'cus_ip', amount: 700, invoice_id: null, sale_type: 'new' });
      const elsewhere = contractEvent(other, 'lnk_other', { timestamp: T0 + 40 * H, ip });
      const kept = contractEvent(ws, 'lnk_a', { timestamp: T0 + 40 * H, ip: '192.0.2.77' });
      await f.log.append([click, lead, sale, elsewhere, kept]);
      await f.settle?.();
      const slice = { from: T0 + 40 * H, to: T0 + 41 * H };
      const [before] = await f.log.aggregate(spec(ws, workspaceScope(ws)), slice);
      assert.deepEqual(actual([before!]).get(''), { clicks: 2, leads: 1, sales: 1, sale_amount: 700 });

      assert.deepEqual(await f.log.forgetIp(ip), { clicks: 2, leads: 1, sales: 1, pending: 0 });
      assert.equal(await f.log.findClick(ws, click.click_id), undefined);
      assert.equal(await f.log.findClick(other, elsewhere.click_id), undefined);
      assert.equal((await f.log.findClick(ws, kept.click_id))?.id, kept.id, 'another address stays');
      assert.equal(await f.conversions.hasAnyLead(ws, 'cus_ip'), false);
      const [after] = await f.log.aggregate(spec(ws, workspaceScope(ws)), slice);
      assert.deepEqual(actual([after!]).get(''), { clicks: 1, leads: 0, sales: 0, sale_amount: 0 });
      assert.deepEqual(await f.log.forgetIp(ip), { clicks: 0, leads: 0, sales: 0, pending: 0 }, 'nothing left');
    });

    test('erasing a click removes it and the leads and sales attributed to it', async () => {
      const click = contractEvent(ws, 'lnk_a', { timestamp: T0 + 41 * H });
      const lead = contractEvent(ws, 'lnk_a', { kind: 'lead', timestamp: T0 + 41 * H + 1, click_id: click.click_id, customer_id: 'cus_clk', event_name: 'Sign up' });
      const sale = contractEvent(ws, 'lnk_a', { kind: 'sale', timestamp: T0 + 41 * H + 2, click_id: click.click_id, customer_id: 'cus_clk', amount: 300, invoice_id: null, sale_type: 'new' });
      const neighbour = contractEvent(ws, 'lnk_a', { timestamp: T0 + 41 * H });
      await f.log.append([click, lead, sale, neighbour]);
      await f.settle?.();
      assert.deepEqual(await f.log.forgetClick(click.click_id), { clicks: 1, leads: 1, sales: 1, pending: 0 });
      assert.equal(await f.log.findClick(ws, click.click_id), undefined);
      assert.equal(await f.conversions.hasAnyLead(ws, 'cus_clk'), false);
      assert.equal((await f.log.findClick(ws, neighbour.click_id))?.id, neighbour.id);
      const [after] = await f.log.aggregate(spec(ws, workspaceScope(ws)), { from: T0 + 41 * H, to: T0 + 42 * H });
      assert.deepEqual(actual([after!]).get(''), { clicks: 1, leads: 0, sales: 0, sale_amount: 0 });
    });

    test('retention: expire deletes exactly the events before the horizon, in batches of at most its limit; whole days stay counted until the summaries expire', async () => {
      const DAY = 24 * H;
      const oldDay = T0 - 10 * DAY;
      const old = [
        ...Array.from({ length: 5 }, (_, i) => contractEvent(ws, 'lnk_a', { timestamp: oldDay + i * H })),
        ...Array.from({ length: 2 }, (_, i) => contractEvent(other, 'lnk_other', { timestamp: oldDay + i * H })),
        contractEvent(ws, 'lnk_a', { kind: 'lead', timestamp: oldDay + 6 * H, customer_id: 'cus_old', event_name: 'Sign up' }),
      ];
      await f.log.append(old);
      await f.settle?.();
      const oldRange = { from: oldDay, to: oldDay + DAY };
      const total = async () => actual(await f.log.aggregate(spec(ws, workspaceScope(ws)), oldRange)).get('') ?? { clicks: 0, leads: 0, sales: 0, sale_amount: 0 };
      const counted = await total();
      assert.deepEqual(counted, { clicks: 5, leads: 1, sales: 0, sale_amount: 0 });
      const horizon = T0 - 5 * DAY;
      const batches: number[] = [];
      for (;;) {
        const n = await f.log.expire(horizon, 3);
        batches.push(n);
        if (n < 3) break;
      }
      assert.deepEqual(batches, [3, 3, 2], 'eight old events, at most three a call');
      assert.equal(await f.log.findClick(ws, old[0]!.click_id), undefined);
      assert.equal(await f.conversions.hasAnyLead(ws, 'cus_old'), false);
      const listed = await f.log.page(spec(ws, workspaceScope(ws)), oldRange, { order: 'asc', limit: 100, offset: 0 });
      assert.deepEqual(listed, [], 'no raw event of the expired day is listed');
      assert.ok((await f.log.findClick(ws, rows[1]!.click_id)) !== undefined, 'events after the horizon stay');
      assert.deepEqual(await total(), counted, "the expired day's totals still answer");

      const recent = () => f.log.aggregate(spec(ws, workspaceScope(ws), { group: ['country'] }), { from: T0, to: T0 + 48 * H });
      const recentBefore = actual(await recent());
      let summaries = 0;
      for (let n = -1; n !== 0; ) summaries += n = await f.log.expireSummaries(horizon, 2);
      assert.ok(summaries > 0);
      assert.deepEqual(await total(), { clicks: 0, leads: 0, sales: 0, sale_amount: 0 }, 'with its summaries gone, the day counts nothing');
      assert.deepEqual(actual(await recent()), recentBefore, 'summaries after the horizon stay');
    });
  });
}

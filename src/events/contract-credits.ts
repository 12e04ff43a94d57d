/**
 * The credits' part of the event store contract (contract.ts runs it on every store): a
 * customer's journey read in the write that appends a sale, a sale's credit rows replaced in that
 * write, and `creditAggregate` grouping one model's rows by the touch's columns while the spec's
 * scope and filters apply to the sale. Credit rows here are made by hand: how they are computed
 * is attribution/credit-writer.ts's (tested there and in analytics/credits.test.ts).
 *
 * @example
 * test('credits …', () => creditContract(f, spec, contractEvent));
 */
import assert from 'node:assert/strict';
import type { AggregateSpec, ConversionStore, EventLog, MergedRow, StoredCredit, StoredEvent } from './event-store.js';
import { buildScope } from './link-scope.js';

/** What the credit cases need of contract.ts's fixture (stated here: contract.ts imports this file). */
interface CreditFixture<Tx> {
  log: EventLog;
  conversions: ConversionStore<Tx>;
  addWorkspace(): Promise<string>;
  addLink(workspaceId: string, link: { id: string; domain: string; key: string; disabled?: boolean }): Promise<void>;
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  settle?(): Promise<void>;
}

type Spec = (workspaceId: string, scope: AggregateSpec['scope'], over?: Partial<AggregateSpec>) => AggregateSpec;
type Make = (workspaceId: string, linkId: string, over?: Partial<StoredEvent>) => StoredEvent;

const T = Date.parse('2025-04-01T00:00:00.000Z');
const H = 3_600_000;

function credit(sale: StoredEvent, touch: StoredEvent, model: string, share: number, cents: number): StoredCredit {
  return {
    workspace_id: sale.workspace_id, model, timestamp: sale.timestamp, sale_id: sale.id, click_id: touch.click_id, customer_id: sale.customer_id ?? null,
    sale_link_id: sale.link_id, link_id: touch.link_id, domain: touch.domain, url: touch.url, utm_source: touch.utm_source ?? null, utm_medium: null,
    utm_campaign: null, utm_term: null, utm_content: null, continent: touch.continent, country: touch.country, region: touch.region, city: touch.city,
    device: touch.device, browser: touch.browser, os: touch.os, trigger: touch.trigger, referer: touch.referer, referer_url: touch.referer_url, share, cents,
  };
}

const byGroup = (rows: readonly MergedRow[]) =>
  Object.fromEntries(rows.filter((r) => r.sales || r.sale_amount).map((r) => [r.g.join('|'), [Math.round(Number(r.sales) * 1e4) / 1e4, Number(r.sale_amount)]]).sort());

export async function creditContract<Tx>(f: CreditFixture<Tx>, spec: Spec, make: Make): Promise<void> {
  const ws = await f.addWorkspace();
  for (const id of ['lnk_c1', 'lnk_c2']) await f.addLink(ws, { id, domain: 'wm.test', key: id });
  await f.addLink(ws, { id: 'lnk_coff', domain: 'wm.test', key: 'coff', disabled: true });
  const leadA = make(ws, 'lnk_c1', { kind: 'lead', timestamp: T, customer_id: 'cus_c', country: 'DE', event_name: 'Sign up' });
  const leadOff = make(ws, 'lnk_coff', { kind: 'lead', timestamp: T + H, customer_id: 'cus_c', event_name: 'Off' });
  const leadB = make(ws, 'lnk_c2', { kind: 'lead', timestamp: T + 2 * H, customer_id: 'cus_c', country: 'FR', event_name: 'Trial' });
  const other = make(ws, 'lnk_c1', { kind: 'lead', timestamp: T + 2 * H, customer_id: 'cus_other', event_name: 'Sign up' });
  await f.transaction((tx) => f.conversions.append([leadA, leadOff, leadB, other], tx));
  await f.conversions.afterCommit();

  // The sale and its credits in one write: the journey read in it sees the sale, in time order,
  // without the disabled link's lead or another customer's.
  const sale = make(ws, 'lnk_c2', { kind: 'sale', timestamp: T + 3 * H, customer_id: 'cus_c', click_id: leadB.click_id, country: 'FR', amount: 1001, sale_type: 'new', invoice_id: null });
  const credits = [credit(sale, leadA, 'linear', 0.5, 501), credit(sale, leadB, 'linear', 0.5, 500), credit(sale, leadA, 'first_click', 1, 1001)];
  await f.transaction(async (tx) => {
    await f.conversions.append([sale], tx);
    const journey = await f.conversions.customerJourney(ws, 'cus_c', T, tx);
    assert.deepEqual(journey.map((r) => r.id), [leadA.id, leadB.id, sale.id], 'journey in time order, disabled link left out');
    assert.equal(Number(journey[2]!.amount), 1001);
    assert.deepEqual((await f.conversions.customerJourney(ws, 'cus_c', T + H, tx)).map((r) => r.id), [leadB.id, sale.id], 'journey since');
    await f.conversions.replaceCredits([sale.id], credits, tx);
  });
  await f.conversions.afterCommit();
  // A rewrite replaces the sale's rows; a rolled-back one leaves them as they were.
  await f.transaction((tx) => f.conversions.replaceCredits([sale.id], credits, tx));
  await assert.rejects(f.transaction(async (tx) => {
    await f.conversions.replaceCredits([sale.id], [], tx);
    throw new Error('rolled back');
  }), /rolled back/);

  const refund = make(ws, 'lnk_c1', { kind: 'sale', timestamp: T + 4 * H, customer_id: 'cus_other', click_id: other.click_id, country: 'US', amount: -300, sale_type: 'recurring', invoice_id: null });
  const onOff = make(ws, 'lnk_coff', { kind: 'sale', timestamp: T + 4 * H, customer_id: 'cus_c', click_id: leadOff.click_id, amount: 700, sale_type: 'new', invoice_id: null });
  await f.transaction(async (tx) => {
    await f.conversions.append([refund, onOff], tx);
    await f.conversions.replaceCredits([refund.id, onOff.id], [credit(refund, other, 'linear', 0, -300), credit(onOff, leadA, 'linear', 1, 700)], tx);
  });
  await f.conversions.afterCommit();
  await f.settle?.();

  const range = { from: T, to: T + 24 * H };
  const all = buildScope({ workspaceId: ws, links: {}, named: false });
  const linear = (over: Partial<AggregateSpec> = {}, r = range) => f.log.creditAggregate(spec(ws, all, { kinds: ['sale'], group: ['link_id'], ...over }), r, 'linear');
  // The disabled link's sale is left out (the scope applies to the sale), its touch on lnk_c1 with it.
  assert.deepEqual(byGroup(await linear()), { lnk_c1: [0.5, 201], lnk_c2: [0.5, 500] }, 'linear by the touch link');
  assert.deepEqual(byGroup(await linear({ group: ['country'] })), { DE: [0.5, 501], FR: [0.5, 500], US: [0, -300] }, "grouped by the touch's country");
  assert.deepEqual(byGroup(await f.log.creditAggregate(spec(ws, all, { kinds: ['sale'], group: ['link_id'] }), range, 'first_click')), { lnk_c1: [1, 1001] }, 'one model');
  assert.deepEqual(byGroup(await linear({}, { from: T, to: T + 3 * H })), {}, 'half-open range: the sale at its end is out');
  // Filters apply to the sale: its country is FR, its sale type new.
  assert.deepEqual(byGroup(await linear({ dims: [{ column: 'country', filter: { op: 'in', values: ['FR'] }, mode: 'exact' }] })), { lnk_c1: [0.5, 501], lnk_c2: [0.5, 500] }, 'dimension filter on the sale');
  assert.deepEqual(byGroup(await linear({ conversions: { saleType: 'recurring' } })), { lnk_c1: [0, -300] }, 'sale type on the sale');
  const input = { workspaceId: ws, links: { ids: { op: 'in' as const, values: ['lnk_c2'] } }, named: true };
  const setScope = buildScope(input, await f.log.scopeLinkIds(input, 10));
  assert.deepEqual(byGroup(await f.log.creditAggregate(spec(ws, setScope, { kinds: ['sale'], group: ['link_id'] }), range, 'linear')), { lnk_c1: [0.5, 501], lnk_c2: [0.5, 500] }, "a link filter selects the sale's link");
  assert.deepEqual(byGroup(await f.log.creditAggregate(spec(ws, all, { kinds: ['sale'], group: ['link_id'] }), range, 'time_decay')), {}, 'no rows of another model');

  // A rewrite of stored rows (the backfill's, a recomputation's) answers in place of the first
  // rows, wherever the store keeps its credits (DuckDB: a copy in its file, docs/decisions/0018).
  await f.transaction((tx) => f.conversions.replaceCredits([sale.id], [credit(sale, leadB, 'linear', 1, 1001)], tx));
  await f.conversions.afterCommit();
  await f.settle?.();
  assert.deepEqual(byGroup(await linear()), { lnk_c1: [0, -300], lnk_c2: [1, 1001] }, 'the rewritten rows');
  assert.deepEqual(byGroup(await linear({ group: ['country'] })), { FR: [1, 1001], US: [0, -300] }, 'the rewritten rows, by country');
  // An erased customer's sales take their credits with them.
  await f.transaction((tx) => f.conversions.forgetCustomer(ws, 'cus_other', tx));
  await f.conversions.afterCommit();
  await f.settle?.();
  assert.deepEqual(byGroup(await linear()), { lnk_c2: [1, 1001] }, "the erased customer's refund is gone");
}

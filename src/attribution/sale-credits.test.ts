import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConversionTouchRow } from '../events/index.js';
import { clickIdOf } from '../visitors/click-id.js';
import { ATTRIBUTION_MODELS } from './models.js';
import { allModelCredits, CREDITED_MODELS, saleCredits } from './sale-credits.js';
import { conversionTouches } from './touches.js';
import { seededRandom } from '../test-support/seeded-random.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 8, 1);
const LOOKBACK = 90 * DAY;

const row = (kind: 'lead' | 'sale', at: number, clickId: string, linkId: string, amount = 0): ConversionTouchRow =>
  ({ kind, customer_id: 'cus', click_id: clickId, link_id: linkId, timestamp: at, amount, g: [linkId] });

/** 400 customers: 1-5 leads on clicks over 120 days (some beyond the lookback), 1-3 sales, some refunds. */
function dataSet() {
  const rnd = seededRandom(4343);
  const out: { rows: ConversionTouchRow[]; sales: ConversionTouchRow[] }[] = [];
  let n = 1;
  for (let c = 0; c < 400; c++) {
    const rows: ConversionTouchRow[] = [];
    let at = T0 + Math.floor(rnd() * 10 * DAY);
    let last = '';
    for (let k = 1 + Math.floor(rnd() * 5); k > 0; k--) {
      last = clickIdOf(at, n % 14_000_000, n++);
      rows.push(row('lead', at + 60_000, last, `lnk_${Math.floor(rnd() * 8)}`));
      at += Math.floor(rnd() * 30 * DAY);
    }
    const sales: ConversionTouchRow[] = [];
    for (let s = 1 + Math.floor(rnd() * 3); s > 0; s--) {
      at += Math.floor(rnd() * 3 * DAY);
      const amount = rnd() < 0.1 ? -Math.floor(rnd() * 5000) : 1 + Math.floor(rnd() * 99_999);
      sales.push(row('sale', at, last, rows[rows.length - 1]!.link_id, amount));
    }
    rows.push(...sales);
    out.push({ rows, sales });
  }
  return out;
}

test('every model: each sale\'s credits add up to its amount, and a refund counts no sale', () => {
  let checked = 0;
  for (const { rows, sales } of dataSet()) {
    const { touches } = conversionTouches(rows);
    for (const sale of sales) {
      for (const model of ATTRIBUTION_MODELS) {
        const credits = saleCredits(model, sale, touches, LOOKBACK);
        assert.equal(credits.reduce((s, c) => s + c.cents, 0), sale.amount, `${model}: cents of a sale of ${sale.amount}`);
        const counted = credits.reduce((s, c) => s + c.share, 0);
        assert.ok(Math.abs(counted - (sale.amount >= 0 ? 1 : 0)) < 1e-9, `${model}: shares ${counted}`);
        for (const c of credits) assert.ok(Number.isInteger(c.cents));
        checked++;
      }
    }
  }
  assert.ok(checked > 3000, `checked ${checked}`);
});

test('revenue by link under every model sums to the total revenue of the data set', () => {
  const set = dataSet();
  const total = set.reduce((s, { sales }) => s + sales.reduce((t, x) => t + x.amount, 0), 0);
  for (const model of ATTRIBUTION_MODELS) {
    const byLink = new Map<string, number>();
    for (const { rows, sales } of set) {
      const { touches } = conversionTouches(rows);
      for (const sale of sales) for (const c of saleCredits(model, sale, touches, LOOKBACK)) byLink.set(c.linkId, (byLink.get(c.linkId) ?? 0) + c.cents);
    }
    assert.equal([...byLink.values()].reduce((s, x) => s + x, 0), total, model);
    if (model !== 'last_click') assert.ok(byLink.size > 1, `${model} spreads over links`);
  }
});

test('allModelCredits is each precomputed model\'s saleCredits, labelled; last_click is not precomputed', () => {
  assert.deepEqual(CREDITED_MODELS, ['first_click', 'linear', 'time_decay', 'position_based']);
  for (const { rows, sales } of dataSet().slice(0, 50)) {
    const { touches } = conversionTouches(rows);
    for (const sale of sales) {
      const all = allModelCredits(sale, touches, LOOKBACK);
      for (const model of CREDITED_MODELS) {
        assert.deepEqual(all.filter((c) => c.model === model).map(({ model: _, ...c }) => c), saleCredits(model, sale, touches, LOOKBACK));
      }
    }
  }
});

test('a journey by hand: three clicks, one older than the lookback, a sale of 1000 cents', () => {
  const a = clickIdOf(T0, 1, 1);
  const b = clickIdOf(T0 + 100 * DAY, 2, 2);
  const c = clickIdOf(T0 + 103 * DAY, 3, 3);
  const rows = [row('lead', T0, a, 'lnk_a'), row('lead', T0 + 100 * DAY, b, 'lnk_b'), row('lead', T0 + 103 * DAY, c, 'lnk_c')];
  const sale = row('sale', T0 + 104 * DAY, c, 'lnk_c', 1000);
  const { touches } = conversionTouches([...rows, sale]);
  // The click 104 days before the sale is out of the 90-day window: b and c share it.
  assert.deepEqual(saleCredits('linear', sale, touches, LOOKBACK).map((x) => [x.linkId, x.share, x.cents]), [['lnk_b', 0.5, 500], ['lnk_c', 0.5, 500]]);
  assert.deepEqual(saleCredits('first_click', sale, touches, LOOKBACK).map((x) => [x.linkId, x.cents]), [['lnk_b', 1000]]);
  // A lookback of 200 days lets the first click in.
  assert.deepEqual(saleCredits('first_click', sale, touches, 200 * DAY).map((x) => [x.linkId, x.cents]), [['lnk_a', 1000]]);
  // A refund of the same journey: revenue moves back, no sale is counted.
  const refund = { ...sale, amount: -301 };
  const back = saleCredits('linear', refund, touches, LOOKBACK);
  assert.deepEqual(back.map((x) => x.cents).reduce((s, x) => s + x, 0), -301);
  assert.deepEqual(back.map((x) => x.share), [0, 0]);
});

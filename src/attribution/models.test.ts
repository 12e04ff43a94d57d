import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ATTRIBUTION_MODELS, creditSale, revenueByLink, shares, splitCents, touchesFor, type SaleTouch, type Touch } from './models.js';
import { seededRandom } from '../test-support/seeded-random.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1);
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≠ ${b}`);

test('shares of each model, computed by hand', () => {
  const times = [T0, T0 + DAY, T0 + 2 * DAY, T0 + 3 * DAY];
  const sale = T0 + 3 * DAY;
  assert.deepEqual(shares('last_click', times, sale), [0, 0, 0, 1]);
  assert.deepEqual(shares('first_click', times, sale), [1, 0, 0, 0]);
  assert.deepEqual(shares('linear', times, sale), [0.25, 0.25, 0.25, 0.25]);
  const pb = shares('position_based', times, sale);
  [0.4, 0.1, 0.1, 0.4].forEach((x, i) => close(pb[i]!, x));
  assert.deepEqual(shares('position_based', times.slice(0, 2), sale), [0.5, 0.5]);
  assert.deepEqual(shares('time_decay', [T0], sale), [1]);
  // Time decay, half-life 7 days: touches 14 and 0 days before the sale weigh 1/4 and 1,
  // so they get 0.25/1.25 = 0.2 and 1/1.25 = 0.8.
  const td = shares('time_decay', [sale - 14 * DAY, sale], sale);
  close(td[0]!, 0.2);
  close(td[1]!, 0.8);
});

test('cents split by largest remainder add up to the amount', () => {
  assert.deepEqual(splitCents(1000, [1 / 3, 1 / 3, 1 / 3]), [334, 333, 333]);
  assert.deepEqual(splitCents(999, [0.4, 0.2, 0.4]), [400, 200, 399]);
  assert.deepEqual(splitCents(1, [0.5, 0.5]), [1, 0]);
  assert.deepEqual(splitCents(-1000, [1 / 3, 1 / 3, 1 / 3]), [-333, -333, -334]);
  assert.deepEqual(splitCents(500, []), []);
});

test('the window: touches after the sale or older than the lookback are left out; the sale keeps its own click', () => {
  const journey: Touch[] = [
    { time: T0 - 100 * DAY, linkId: 'old', clickId: 'c0' },
    { time: T0 - 10 * DAY, linkId: 'a', clickId: 'c1' },
    { time: T0 - DAY, linkId: 'b', clickId: 'c2' },
    { time: T0 + DAY, linkId: 'later', clickId: 'c3' },
  ];
  const sale: SaleTouch = { time: T0, amount: 1000, linkId: 'b', clickId: 'c2' };
  assert.deepEqual(touchesFor(sale, journey).map((t) => t.linkId), ['a', 'b']);
  assert.deepEqual(creditSale('first_click', sale, journey).map((c) => [c.touch.linkId, c.cents]), [['a', 1000], ['b', 0]]);
  // A 5-day window leaves only b.
  assert.deepEqual(creditSale('first_click', sale, journey, { lookbackMs: 5 * DAY, halfLifeMs: 7 * DAY }).map((c) => c.touch.linkId), ['b']);
  // No touch in the window at all: the sale's own link.
  assert.deepEqual(creditSale('linear', { time: T0 + 200 * DAY, amount: 50, linkId: 'z', clickId: 'cz' }, journey).map((c) => [c.touch.linkId, c.cents]), [['z', 50]]);
  // Last click is the link the sale was tracked on, whatever the journey holds.
  assert.deepEqual(creditSale('last_click', { ...sale, linkId: 'tracked' }, journey).map((c) => c.touch.linkId), ['tracked']);
});

test('across a generated data set, every model credits exactly the total revenue', () => {
  const rnd = seededRandom(43);
  const links = Array.from({ length: 12 }, (_, i) => `link_${i}`);
  let total = 0;
  let saleCount = 0;
  const byModel = new Map(ATTRIBUTION_MODELS.map((m) => [m, new Map<string, { sales: number; cents: number }>()]));
  for (let c = 0; c < 2000; c++) {
    const touches: Touch[] = [];
    const n = 1 + Math.floor(rnd() * 6);
    let t = T0 + Math.floor(rnd() * 60 * DAY);
    for (let i = 0; i < n; i++) {
      touches.push({ time: t, linkId: links[Math.floor(rnd() * links.length)]!, clickId: `c${c}_${i}` });
      t += Math.floor(rnd() * 40 * DAY);
    }
    const sales: SaleTouch[] = [];
    for (let s = Math.floor(rnd() * 3); s > 0; s--) {
      const at = touches[Math.floor(rnd() * touches.length)]!;
      const amount = rnd() < 0.1 ? -Math.floor(rnd() * 2000) : 1 + Math.floor(rnd() * 50_000);
      sales.push({ time: at.time + Math.floor(rnd() * 120 * DAY), amount, linkId: at.linkId, clickId: at.clickId });
      total += amount;
      saleCount++;
    }
    for (const m of ATTRIBUTION_MODELS) {
      const acc = byModel.get(m)!;
      for (const [link, r] of revenueByLink(m, sales, touches)) {
        const a = acc.get(link) ?? { sales: 0, cents: 0 };
        a.sales += r.sales;
        a.cents += r.cents;
        acc.set(link, a);
      }
    }
  }
  assert.ok(saleCount > 1000);
  for (const m of ATTRIBUTION_MODELS) {
    const rows = [...byModel.get(m)!.values()];
    assert.equal(rows.reduce((s, r) => s + r.cents, 0), total, `${m}: revenue by link sums to the total`);
    assert.ok(Math.abs(rows.reduce((s, r) => s + r.sales, 0) - saleCount) < 1e-6, `${m}: sales by link sum to the count`);
  }
  // The models differ: first and last click do not credit the same links.
  assert.notDeepEqual([...byModel.get('first_click')!.entries()].sort(), [...byModel.get('last_click')!.entries()].sort());
});

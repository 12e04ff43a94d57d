import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickIdOf } from '../visitors/click-id.js';
import { clickTimeOf, conversionTouches, journeyTouches } from './touches.js';
import { creditSale, touchesFor } from './models.js';

const T = Date.UTC(2026, 10, 20);
const DAY = 86_400_000;

test("a conversion's click is timed by the click id Waymark made, else by the conversion", () => {
  const id = clickIdOf(T - 3 * DAY, 5, 7);
  assert.equal(clickTimeOf(id, T), T - 3 * DAY);
  assert.equal(clickTimeOf('imported-id', T), T, 'not a 16-character id');
  assert.equal(clickTimeOf(clickIdOf(T + DAY, 1, 1), T), T, 'a click after its conversion is not believed');
});

test('conversions → one touch per click id, and the sales', () => {
  const a = clickIdOf(T - 10 * DAY, 1, 1);
  const b = clickIdOf(T - 2 * DAY, 2, 2);
  const rows = [
    { kind: 'sale' as const, timestamp: T, link_id: 'lb', click_id: b, amount: 900 },
    { kind: 'lead' as const, timestamp: T - 9 * DAY, link_id: 'la', click_id: a, amount: 0 },
    { kind: 'lead' as const, timestamp: T - DAY, link_id: 'lb', click_id: b, amount: 0 },
  ];
  const { touches, sales } = conversionTouches(rows);
  assert.deepEqual(touches, [
    { time: T - 10 * DAY, linkId: 'la', clickId: a },
    { time: T - 2 * DAY, linkId: 'lb', clickId: b },
  ]);
  assert.deepEqual(sales, [{ time: T, amount: 900, linkId: 'lb', clickId: b }]);
});

test('a journey: its clicks are the touches', () => {
  const { touches, sales } = journeyTouches([
    { kind: 'click', timestamp: T - DAY, link_id: 'la', click_id: 'c1', amount: 0 },
    { kind: 'click', timestamp: T - 5, link_id: 'lb', click_id: 'c2', amount: 0 },
    { kind: 'lead', timestamp: T - 4, link_id: 'lb', click_id: 'c2', amount: 0 },
    { kind: 'sale', timestamp: T, link_id: 'lb', click_id: 'c2', amount: 100 },
  ]);
  assert.deepEqual(touches.map((t) => t.linkId), ['la', 'lb']);
  assert.equal(sales.length, 1);
});

test('tied touches (the same millisecond) are ordered by click id, whatever order the rows come in', () => {
  // Two clicks in the same millisecond (their ids spell it and differ after it), and a later one.
  const first = clickIdOf(T - DAY, 1, 1);
  const second = clickIdOf(T - DAY, 9, 9);
  const [lo, hi] = first < second ? [first, second] : [second, first];
  const later = clickIdOf(T - 3_600_000, 3, 3);
  const rows = [
    { kind: 'lead' as const, timestamp: T - DAY + 10, link_id: 'l_hi', click_id: hi, amount: 0 },
    { kind: 'lead' as const, timestamp: T - DAY + 10, link_id: 'l_lo', click_id: lo, amount: 0 },
    { kind: 'lead' as const, timestamp: T - 3_000_000, link_id: 'l_later', click_id: later, amount: 0 },
    { kind: 'sale' as const, timestamp: T, link_id: 'l_later', click_id: later, amount: 1001 },
  ];
  const orders = [rows, [...rows].reverse(), [rows[2]!, rows[0]!, rows[3]!, rows[1]!]];
  const touchLists = orders.map((o) => conversionTouches(o).touches);
  for (const touches of touchLists) assert.deepEqual(touches.map((t) => t.linkId), ['l_lo', 'l_hi', 'l_later'], 'time, then click id');
  const sale = { time: T, amount: 1001, linkId: 'l_later', clickId: later };
  for (const model of ['first_click', 'linear', 'time_decay', 'position_based'] as const) {
    const credits = touchLists.map((touches) => creditSale(model, sale, touches).map((c) => [c.touch.linkId, c.cents]));
    assert.deepEqual(credits[1], credits[0], `${model}: reversed rows, same credit`);
    assert.deepEqual(credits[2], credits[0], `${model}: shuffled rows, same credit`);
  }
  // The first click of a tie is the lower click id; the leftover cent of an even split goes to it too.
  assert.deepEqual(creditSale('first_click', sale, touchLists[1]!).filter((c) => c.share > 0).map((c) => c.touch.linkId), ['l_lo']);
  assert.deepEqual(creditSale('position_based', sale, touchLists[2]!).map((c) => c.cents), [401, 200, 400]);
  // The models' own entry point sorts too: touches handed over in any order.
  assert.deepEqual(touchesFor(sale, [...touchLists[0]!].reverse()).map((t) => t.clickId), [lo, hi, later]);
});

test('clicks of a journey in any order: touches by time, then click id', () => {
  const rows = [
    { kind: 'click' as const, timestamp: T - 5, link_id: 'lb', click_id: 'c2', amount: 0 },
    { kind: 'click' as const, timestamp: T - 5, link_id: 'la', click_id: 'c1', amount: 0 },
    { kind: 'click' as const, timestamp: T - DAY, link_id: 'lc', click_id: 'c3', amount: 0 },
  ];
  assert.deepEqual(journeyTouches(rows).touches.map((t) => t.clickId), ['c3', 'c1', 'c2']);
  assert.deepEqual(journeyTouches([...rows].reverse()).touches.map((t) => t.clickId), ['c3', 'c1', 'c2']);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickIdOf } from '../visitors/click-id.js';
import { clickTimeOf, conversionTouches, journeyTouches } from './touches.js';

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

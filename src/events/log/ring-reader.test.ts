import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClickRing } from './click-ring.js';
import { createRingReader } from './ring-reader.js';
import { createColumnEnricher } from './column-enrich.js';
import { createClickEnricher } from './enrich.js';
import type { RawClick } from './raw-click.js';
import { rowsOf } from '../batch/wide-rows.js';
import { checkColumns } from '../batch/click-columns.js';
import type { GeoResult } from '../../visitors/geo.js';
import { createUaClassifier } from '../../visitors/visitor.js';
import { clickIdOf } from '../../visitors/click-id.js';

const T0 = 1_764_000_000_000;
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

function click(i: number, over: Partial<RawClick> = {}): RawClick & { r1: number; r2: number } {
  const r1 = (i * 7919) % 14_776_336;
  const r2 = (i * 104_729) % 916_132_832;
  return {
    id: clickIdOf(T0 + i, r1, r2), timestamp: T0 + i, linkId: `link_${i % 3}`, workspaceId: `ws_${i % 2}`, domain: 'go.test', key: `k${i % 3}`,
    url: i % 5 ? `https://example.com/${i % 5}?utm_source=s${i % 2}` : 'https://example.com/', ip: i % 7 ? `10.0.${i % 9}.${i % 200}` : '2001:db8::1',
    ua: i % 4 ? `agent ${i % 4}` : IPHONE, referer: i % 2 ? 'https://www.google.com/x' : '', qr: i % 3 === 0,
    geo: i % 4 === 0 ? { country: 'FR', city: 'Paris', region: 'FR-IDF', continent: 'EU' } : null, r1, r2, ...over,
  };
}

// A locator whose answer depends on the whole address (so a place shared wrongly would show).
const geo = { locateIp: (ip: string): GeoResult => ({ country: ip.includes(':') ? 'NL' : 'US', city: `c${ip.split('.')[3] ?? '6'}`, region: 'R', continent: 'NA' }) };

for (const ipMode of ['anonymized', 'full', 'none'] as const) {
  test(`ring → columns: the same stored rows as raw clicks through the row enricher (VISITOR_IP=${ipMode})`, () => {
    const ring = createClickRing({ capacity: 64, clickIdOf });
    const reader = createRingReader(ring.buffer, clickIdOf);
    const enrichRow = createClickEnricher({ geo, classify: createUaClassifier(), ipMode });
    const enrich = createColumnEnricher({ geo, classify: createUaClassifier(), ipMode });
    const mirror = createRingReader(ring.buffer, clickIdOf);
    let tail = 0;
    for (let b = 0; b < 3; b++) {
      const from = ring.head;
      for (let i = 0; i < 40; i++) {
        const c = click(b * 40 + i);
        assert.notEqual(ring.write(c, c.r1, c.r2, tail), undefined);
      }
      const batch = ring.batch(from, ring.head);
      const columns = reader.columns(batch, enrich);
      checkColumns(columns);
      assert.equal(columns.length, 40);
      assert.deepEqual(rowsOf(columns), mirror.read(batch).map(enrichRow));
      // Each distinct value once: 3 links × 2 workspaces at most, 4 agents, 2 referers, 2 triggers.
      assert.ok(columns.dictionaries.links.length <= 6);
      assert.equal(columns.dictionaries.agents.length, 4);
      assert.equal(columns.dictionaries.referers.length, 2);
      assert.deepEqual(columns.dictionaries.triggers, ['link', 'qr']);
      tail = ring.head;
    }
  });
}

test('ring → columns: a flood of distinct agents keeps what the reader holds within two generations of the ring’s tables', () => {
  const maxEntries = 50;
  const ring = createClickRing({ capacity: 256, clickIdOf, tables: { ua: { maxEntries } } });
  const reader = createRingReader(ring.buffer, clickIdOf);
  const classified: string[] = [];
  const enrich = createColumnEnricher({ geo, classify: (ua) => (classified.push(ua), { bot: false, device: 'Desktop', browser: ua, os: 'Linux' }), ipMode: 'anonymized' });
  let tail = 0;
  let most = 0;
  for (let b = 0; b < 40; b++) {
    const from = ring.head;
    for (let i = 0; i < 30; i++) {
      const c = click(b * 30 + i, { ua: `flood ${b * 30 + i}`, url: 'https://example.com/', referer: '', geo: null });
      assert.notEqual(ring.write(c, c.r1, c.r2, tail), undefined);
    }
    const columns = reader.columns(ring.batch(from, ring.head), enrich);
    assert.deepEqual(rowsOf(columns).map((r) => r.ua), Array.from({ length: 30 }, (_, i) => `flood ${b * 30 + i}`));
    tail = ring.head;
    most = Math.max(most, reader.heldEntries());
  }
  assert.ok(ring.generation > 10, 'the tables started over many times');
  // Agents of two generations, plus one URL, one absent referer and places of CDN headers: bounded.
  assert.ok(most <= 2 * maxEntries + 4, `held ${most}`);
  assert.equal(classified.length, 1200, 'each distinct agent classified once');
});

test('ring → columns: an agent is classified once per generation, not once per click or batch', () => {
  const ring = createClickRing({ capacity: 64, clickIdOf });
  const reader = createRingReader(ring.buffer, clickIdOf);
  let calls = 0;
  const enrich = createColumnEnricher({ geo, classify: () => (calls++, { bot: false, device: 'Mobile', browser: 'Safari', os: 'iOS' }), ipMode: 'anonymized' });
  let tail = 0;
  for (let b = 0; b < 5; b++) {
    const from = ring.head;
    for (let i = 0; i < 20; i++) {
      const c = click(i, { ua: IPHONE });
      ring.write(c, c.r1, c.r2, tail);
    }
    reader.columns(ring.batch(from, ring.head), enrich);
    tail = ring.head;
  }
  assert.equal(calls, 1);
});

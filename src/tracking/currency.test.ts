import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  convertToUsdCents,
  createCurrencyConverter,
  minorDigits,
  parseRateTable,
  THREE_DECIMAL_CURRENCIES,
  ZERO_DECIMAL_CURRENCIES,
} from './currency.js';

const rates = new Map([['usd', 1], ['eur', 0.8], ['jpy', 150], ['krw', 1400], ['kwd', 0.3]]);

test('two-, zero- and three-decimal currencies convert to US cents, rounded to the nearest cent', () => {
  assert.equal(convertToUsdCents(1000, 'eur', rates), 1250); // €10.00
  assert.equal(convertToUsdCents(1000, 'EUR', rates), 1250);
  assert.equal(convertToUsdCents(1500, 'jpy', rates), 1000); // ¥1500 (whole yen)
  assert.equal(convertToUsdCents(1, 'jpy', rates), 1); // ¥1 = 0.67 cents
  assert.equal(convertToUsdCents(14_000, 'KRW', rates), 1000);
  assert.equal(convertToUsdCents(3000, 'kwd', rates), 1000); // 3.000 KWD
  assert.equal(convertToUsdCents(1, 'eur', rates), 1); // 1.25 → 1
  assert.equal(convertToUsdCents(2, 'eur', rates), 3); // 2.5 → 3
  assert.equal(convertToUsdCents(0, 'eur', rates), 0);
  assert.equal(convertToUsdCents(777, 'usd', new Map()), 777);
  assert.equal(convertToUsdCents(100, 'gbp', rates), undefined);
});

test('minor digits follow the processor zero-decimal list and ISO 4217 three-decimal list', () => {
  assert.equal(minorDigits('jpy'), 0);
  assert.equal(minorDigits('vnd'), 0);
  assert.equal(minorDigits('kwd'), 3);
  assert.equal(minorDigits('eur'), 2);
  assert.equal(minorDigits('huf'), 2);
});

test('the bundled table has a positive rate for every zero- and three-decimal currency and the majors', () => {
  const fx = createCurrencyConverter({});
  const table = fx.table();
  assert.equal(table.source, 'bundled');
  assert.match(table.date ?? '', /^\d{4}-\d{2}-\d{2}$/);
  for (const code of [...ZERO_DECIMAL_CURRENCIES, ...THREE_DECIMAL_CURRENCIES, 'eur', 'gbp', 'cad', 'aud', 'chf', 'inr', 'brl', 'mxn', 'cny']) {
    assert.ok((table.rates.get(code) ?? 0) > 0, code);
  }
  assert.equal(table.rates.get('usd'), 1);
});

test('rate files: wrapped or flat form; bad files are rejected with the reason', () => {
  assert.equal(parseRateTable({ eur: 0.9 }, 'flat').rates.get('eur'), 0.9);
  assert.equal(parseRateTable({ base: 'USD', date: '2025-02-02', rates: { EUR: 0.9 } }, 'wrapped').rates.get('eur'), 0.9);
  assert.throws(() => parseRateTable({ rates: { eur: -1 } }, 'f'), /rates\.eur/);
  assert.throws(() => parseRateTable({ rates: { euro: 1 } }, 'f'), /rates\.euro/);
  assert.throws(() => parseRateTable({ base: 'eur', rates: { usd: 1.1 } }, 'f'), /base must be "usd"/);
  assert.throws(() => parseRateTable('nope', 'f'), /Currency rate table f/);
});

test("the operator's file replaces the bundled table and is re-read when it changes", () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-fx-'));
  try {
    const file = join(dir, 'rates.json');
    writeFileSync(file, JSON.stringify({ rates: { eur: 0.5 } }));
    let clock = 1_000_000;
    const errors: string[] = [];
    const fx = createCurrencyConverter({ file, now: () => clock, checkEveryMs: 60_000, onReloadError: (e) => errors.push(e.message) });
    assert.equal(fx.toUsdCents(100, 'eur'), 200);
    assert.equal(fx.toUsdCents(100, 'jpy'), undefined); // replaced, not merged

    writeFileSync(file, JSON.stringify({ rates: { eur: 0.25 } }));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    assert.equal(fx.toUsdCents(100, 'eur'), 200); // not checked again yet
    clock += 60_000;
    assert.equal(fx.toUsdCents(100, 'eur'), 400);

    writeFileSync(file, '{ broken');
    utimesSync(file, new Date(), new Date(Date.now() + 10_000));
    clock += 60_000;
    assert.equal(fx.toUsdCents(100, 'eur'), 400); // last good table kept
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /rates\.json/);

    assert.throws(() => createCurrencyConverter({ file: join(dir, 'missing.json') }), /missing\.json/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

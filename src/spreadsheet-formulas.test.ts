import { test } from 'node:test';
import assert from 'node:assert/strict';
import { neutraliseFormula, restoreFormula } from './spreadsheet-formulas.js';
import { cellOf } from './exports/cells.js';

const LEADING = ['=', '+', '-', '@', '\t', '\r'];

test('a text beginning with any of the six formula characters gets a leading quote; others are left alone', () => {
  for (const c of LEADING) {
    assert.equal(neutraliseFormula(`${c}HYPERLINK("https://evil.example")`), `'${c}HYPERLINK("https://evil.example")`);
    assert.equal(neutraliseFormula(c), `'${c}`);
  }
  for (const s of ['', 'Spring sale', ' =1+1', 'a=b', "'quoted", "it's", '#1', '(1)', '%20', '"=1"']) assert.equal(neutraliseFormula(s), s);
  // Quotes already in front of a formula character get one more, so the way back is exact.
  assert.equal(neutraliseFormula("'=1+1"), "''=1+1");
  assert.equal(neutraliseFormula("''-2"), "'''-2");
});

test('restoreFormula undoes neutraliseFormula for every string, and leaves a quote that marks nothing', () => {
  const samples = ['', "'", "''", "'a", "''a", 'x', ...LEADING.flatMap((c) => [c, `${c}x`, `'${c}x`, `''${c}`, `x${c}`, `'''${c}'`])];
  for (const s of samples) assert.equal(restoreFormula(neutraliseFormula(s)), s, JSON.stringify(s));
  // What a neutralised cell never looks like is read as it is.
  assert.equal(restoreFormula("'hello"), "'hello");
  assert.equal(restoreFormula('=1+1'), '=1+1', 'a formula in a hand-made file stays a formula for the links rules to judge');
});

test('CSV cells: text is neutralised, numbers are not (a negative amount stays a number)', () => {
  assert.equal(cellOf('-20% off'), "'-20% off");
  assert.equal(cellOf(-12.5), '-12.5');
  assert.equal(cellOf(-0.000001), '-0.000001');
  assert.equal(cellOf(1e21), '1e+21');
  assert.equal(cellOf(true), 'true');
  assert.equal(cellOf(null), '');
  assert.equal(cellOf(['=a', 'b']), "'=a,b", 'a list of text is one text cell');
  assert.equal(cellOf({ note: '=1+1' }), '{"note":"=1+1"}', 'JSON begins with a brace');
  assert.equal(cellOf('-12.5'), "'-12.5", 'text that looks like a number is still text from outside');
});

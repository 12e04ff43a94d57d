import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellText, scalarColumns, table } from './tables.js';

test('a table has a header, a rule and one line per row', () => {
  assert.equal(table([{ country: 'DE', clicks: 3 }, { country: 'FR', clicks: 1 }], ['country', 'clicks']), 'country | clicks\n--- | ---\nDE | 3\nFR | 1');
});

test('an empty list says so instead of printing a bare header', () => {
  assert.equal(table([], ['a']), '(no rows)');
});

test('cells escape what would break the table: pipes, line breaks, backslashes', () => {
  assert.equal(cellText('a|b\nc\\d'), 'a\\|b c\\\\d');
  assert.equal(cellText(null), '');
  assert.equal(cellText(undefined), '');
  assert.equal(cellText(false), 'false');
  assert.equal(cellText({ a: 1 }), '{"a":1}');
});

test('default columns are the scalar keys in first-seen order, nested objects left out', () => {
  const rows = [{ link: 'l1', meta: { a: 1 }, clicks: 2 }, { link: 'l2', extra: null, clicks: 0 }];
  assert.deepEqual(scalarColumns(rows), ['link', 'clicks', 'extra']);
  assert.equal(table(rows), 'link | clicks | extra\n--- | --- | ---\nl1 | 2 | \nl2 | 0 | ');
});

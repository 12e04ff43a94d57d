/**
 * Reads' results turned into row objects in slices (connections.ts `rowObjects`): the same rows
 * as DuckDB's own `getRowObjectsJS`, over several chunks and every type the event store returns,
 * and the loop turns while a large result is converted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance } from '@duckdb/node-api';
import { rowObjects } from './connections.js';

const QUERY = `SELECT x AS n, x::BIGINT * 1000 AS big, 'v' || x AS text, CASE WHEN x % 3 = 0 THEN NULL ELSE x END AS maybe,
  x % 2 = 0 AS even, x / 7.0 AS ratio, [x, x + 1] AS list, x AS n_1
  FROM range(5000) t(x) ORDER BY x`;

test('rowObjects: the rows getRowObjectsJS gives, over several chunks and types', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    const expected = (await c.runAndReadAll(QUERY)).getRowObjectsJS();
    const result = await c.run(QUERY);
    assert.ok(result.chunkCount >= 3, 'the result spans chunks');
    const rows = await rowObjects(result);
    assert.equal(rows.length, 5000);
    assert.deepEqual(rows, expected);
    assert.deepEqual(rows[3], { n: 3n, big: 3000n, text: 'v3', maybe: null, even: false, ratio: 3 / 7, list: [3n, 4n], n_1: 3n });
    assert.deepEqual(await rowObjects(await c.run('SELECT 1 AS a WHERE false')), []);
  } finally {
    c.closeSync();
    instance.closeSync();
  }
});

test('rowObjects lets the loop turn while a large result is converted', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const c = await instance.connect();
  try {
    const result = await c.run(`SELECT x, 'row ' || x AS a, 'more text ' || x AS b, x * 2 AS d, x::VARCHAR AS e FROM range(200000) t(x)`);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const rows = await rowObjects(result);
    clearInterval(ticker);
    assert.equal(rows.length, 200_000);
    // Converting 200,000 rows takes far more than one slice: timers ran in between.
    assert.ok(turns > 0, 'the loop turned during the conversion');
  } finally {
    c.closeSync();
    instance.closeSync();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duckDbPathFor } from './path.js';

test('the DuckDB file lies beside the SQLite file, in memory beside an in-memory one, or where EVENTS_URL says', () => {
  assert.equal(duckDbPathFor('duckdb', { url: 'file:./data/waymark.db', sqlitePath: '/srv/data/waymark.db' }), '/srv/data/waymark.events.duckdb');
  assert.equal(duckDbPathFor('duckdb', { url: 'file::memory:' }), ':memory:');
  assert.match(duckDbPathFor('duckdb', { url: 'postgres://db/waymark' }), /data\/events\.duckdb$/);
  assert.equal(duckDbPathFor('duckdb:/tmp/x.duckdb', { url: 'postgres://db/waymark' }), '/tmp/x.duckdb');
  assert.equal(duckDbPathFor('duckdb::memory:', { url: 'file:./data/waymark.db', sqlitePath: '/srv/data/waymark.db' }), ':memory:');
});

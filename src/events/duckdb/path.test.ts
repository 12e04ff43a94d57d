import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { localFilesFor } from '../../db/open.js';
import { duckDbPathFor } from './path.js';

test('the DuckDB file lies beside the SQLite file, in memory beside an in-memory one, or where EVENTS_URL says', () => {
  assert.equal(duckDbPathFor('duckdb', localFilesFor('file:/srv/data/waymark.db')), '/srv/data/waymark.events.duckdb');
  assert.equal(duckDbPathFor('duckdb', localFilesFor('file::memory:')), ':memory:');
  assert.equal(duckDbPathFor('duckdb', localFilesFor('postgres://db/waymark')), join(process.cwd(), 'data', 'events.duckdb'));
  assert.equal(duckDbPathFor('duckdb:/tmp/x.duckdb', localFilesFor('postgres://db/waymark')), '/tmp/x.duckdb');
  assert.equal(duckDbPathFor('duckdb::memory:', localFilesFor('file:/srv/data/waymark.db')), ':memory:');
});

/**
 * On PostgreSQL, Kysely's migrator reads the catalog of every schema on the server; a schema that
 * another test or app drops while it reads fails that read in one of three wordings. Those, and
 * only those, are read again (db/open.ts `migrate`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOG_RACE } from './open.js';

test('the catalog races that are read again, and errors that are not', () => {
  for (const raced of ['schema "t_1a2b3c" does not exist', 'relation "t_1a2b3c.links" does not exist', 'column "folder_ids" of relation "webhooks" does not exist']) {
    assert.ok(CATALOG_RACE.test(raced), raced);
  }
  for (const real of ['permission denied for schema public', 'syntax error at or near "tabel"', 'column "folder_ids" does not exist', 'relation "links" already exists', 'prefix: relation "links" does not exist']) {
    assert.ok(!CATALOG_RACE.test(real), real);
  }
});

/**
 * A start that fails because the event store cannot open says why, once: no "did not close
 * cleanly" warning after it (nothing was open to close; the warning sent users looking for lost
 * events that never existed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnServer } from '../../test-support/processes.js';

test('an event store that fails to open stops the start with its error, without a close warning', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-log-open-'));
  try {
    // A folder where the DuckDB file should be: DuckDB refuses to open it.
    mkdirSync(join(dir, 'events.duckdb'));
    const server = spawnServer(`file:${join(dir, 'w.db')}`, await freePort(), 'wm_log_open_fails_0123456789', { EVENTS_URL: `duckdb:${join(dir, 'events.duckdb')}` });
    assert.equal(await server.exited, 1);
    assert.match(server.output(), /waymark: failed to start: .*Is a directory/);
    assert.equal(server.output().includes('did not close cleanly'), false, server.output());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

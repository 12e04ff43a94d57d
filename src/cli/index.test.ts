import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './index.js';
import { openDatabase } from '../db/open.js';
import { hashApiKey } from '../workspaces/api-keys.js';

test('CLI creates workspaces and keys, lists and revokes them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-cli-'));
  const env = { DATABASE_URL: `file:${join(dir, 'cli.db')}` };
  const lines: string[] = [];
  const out = (l: string) => lines.push(l);
  try {
    assert.equal(await runCli(['workspaces', 'create', '--name', 'Acme Inc', '--plan', 'pro'], out, env), 0);
    assert.match(lines.join('\n'), /Created workspace ws_\w+ \(acme-inc, plan pro\)/);
    const firstKey = /API key \(shown once\): (wm_\w+)/.exec(lines.join('\n'))![1]!;

    lines.length = 0;
    assert.equal(await runCli(['keys', 'create', '-w', 'acme-inc', '--scopes', 'links.read analytics.read'], out, env), 0);
    const scopedKey = /API key \(shown once\): (wm_\w+)/.exec(lines.join('\n'))![1]!;
    const keyId = /Created key (key_\w+)/.exec(lines.join('\n'))![1]!;

    const database = await openDatabase(env.DATABASE_URL);
    const rows = await database.db.selectFrom('api_keys').selectAll().execute();
    await database.close();
    assert.equal(rows.length, 2);
    assert.deepEqual(rows.map((r) => r.hashed_key).sort(), [hashApiKey(firstKey), hashApiKey(scopedKey)].sort());
    assert.equal(rows.find((r) => r.id === keyId)!.scopes, 'links.read analytics.read');

    lines.length = 0;
    assert.equal(await runCli(['keys', 'revoke', keyId, '-w', 'acme-inc'], out, env), 0);
    assert.equal(await runCli(['keys', 'list', '-w', 'acme-inc'], out, env), 0);
    assert.match(lines.join('\n'), new RegExp(`${keyId}\\t\\S+\\trevoked`));
    assert.equal(await runCli(['keys', 'create', '-w', 'acme-inc', '--scopes', 'bogus'], out, env), 1);
    assert.equal(await runCli(['workspaces', 'create', '--name', 'X', '--plan', 'gold'], out, env), 1);
    assert.equal(await runCli(['keys', 'list', '-w', 'nope'], out, env), 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

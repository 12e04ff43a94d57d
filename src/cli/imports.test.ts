/**
 * `waymark imports`: an import over HTTP whose process died before it wrote a batch is listed as
 * interrupted, with how to complete it; `imports resume` completes it (every row in, once) and
 * `imports undo` removes exactly its links.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createTestApp, databaseUrlOf } from '../test-support/harness.js';
import { slugOf } from '../dashboard/testing.js';
import { runCli } from './index.js';

test('imports list tells what was imported and how to resume; resume completes it, undo removes its links', async () => {
  const t = await createTestApp();
  try {
    const slug = await slugOf(t);
    const env = { DATABASE_URL: databaseUrlOf(t.database), BASE_URL: 'http://localhost:3999', IMPORT_SPOOL_DIR: '' };
    const n = 600;
    const csv = ['url,key', ...Array.from({ length: n }, (_, i) => `https://example.com/cli/${i},cli-${i}`)].join('\n') + '\n';
    // A job whose file arrived and whose process then died: recorded, kept, never heartbeating again.
    const { jobs } = t.modules.imports.runner;
    const job = await jobs.begin(t.workspaceId, { source: 'api', contentType: 'text/csv', mapping: {}, createdBy: null });
    writeFileSync(job.spoolPath!, csv);
    await jobs.uploaded(job.id);
    await t.database.db.updateTable('import_jobs').set({ heartbeat_at: Date.now() - 3_600_000 }).where('id', '=', job.id).execute();
    env.IMPORT_SPOOL_DIR = job.spoolPath!.replace(/\/[^/]+$/, '');

    const lines: string[] = [];
    const out = (l: string) => lines.push(l);
    assert.equal(await runCli(['imports', 'list', '-w', slug], out, env), 0);
    assert.match(lines[0]!, new RegExp(`^${job.id}  interrupted .* read 0, created 0, skipped 0, rejected 0$`));
    assert.ok(lines.includes(`    complete it: waymark imports resume ${job.id} --workspace ${slug}`), lines.join('\n'));

    lines.length = 0;
    assert.equal(await runCli(['imports', 'resume', job.id, '-w', slug], out, env), 0);
    assert.equal(lines[0], `Completed ${job.id}: read ${n}, created ${n}, skipped 0, rejected 0`);
    const count = async () => (await t.database.db.selectFrom('links').select('id').where('key', 'like', 'cli-%').execute()).length;
    assert.equal(await count(), n);
    assert.notEqual(await runCli(['imports', 'resume', job.id, '-w', slug], out, env), 0, 'a completed import is not resumed');

    lines.length = 0;
    assert.equal(await runCli(['imports', 'undo', job.id, '-w', slug], out, env), 0);
    assert.equal(lines[0], `Undone ${job.id}: ${n} links deleted`);
    assert.equal(await count(), 0);
    lines.length = 0;
    await runCli(['imports', 'list', '-w', slug], out, env);
    assert.match(lines[0]!, new RegExp(`^${job.id}  undone .* created ${n}, .*${n} deleted by undo$`));
  } finally {
    await t.close();
  }
});

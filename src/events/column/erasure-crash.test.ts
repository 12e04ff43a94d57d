/**
 * kill -9 between the two halves of an erasure (erasure.ts), in a real process, on the default
 * store (DuckDB beside a SQLite file). A child process seeds a link's clicks, leads and sales in
 * both databases, then commits the metadata half of two erasures (a customer's, as the customers
 * module does on the main thread, and an address's, as the log thread does its own) and is killed
 * before either hand-off is applied. Reopened (the next start), the erasures are finished: their
 * events are gone from both databases, every other event is there, the link counters count what
 * is left, and no hand-off waits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { openDatabase } from '../../db/open.js';
import { TEST_ENGINE } from '../../test-support/harness.js';
import { privateDatabase } from '../../test-support/server-process.js';
import { createWorkspaceService } from '../../workspaces/service.js';
import { createWorkspaceStore } from '../../workspaces/store.js';
import { insertLink } from '../../redirect/testing.js';
import { openEventStores } from '../open.js';
import { pendingErasures } from './erasure.js';

const skip = TEST_ENGINE !== 'sqlite' && 'the DuckDB file beside a SQLite database';
const ERASED_IP = '198.51.100.0';

test('kill -9 between the halves of an erasure: after a restart, nothing lost and nothing left half-erased', { skip, timeout: 240_000 }, async () => {
  const db = await privateDatabase();
  const eventFile = join(db.dir, 'events.duckdb');
  const config = { eventsUrl: `duckdb:${eventFile}`, duckdbMemoryLimit: '256MB', duckdbThreads: 1 };
  try {
    const database = await db.open();
    const ws = await createWorkspaceService(createWorkspaceStore(database.db)).createWorkspace({ name: 'Crash', plan: 'enterprise' });
    const link = await insertLink(database.db, ws.id, { domain: 'wm.test', key: 'crash', url: 'https://example.com/' });
    await database.close();

    const script = join(db.dir, 'child.mts');
    const src = (p: string) => JSON.stringify(resolve(p));
    writeFileSync(
      script,
      `import { openDatabase } from ${src('src/db/open.ts')};
import { openEventStores } from ${src('src/events/open.ts')};
import { contractEvent } from ${src('src/events/contract.ts')};
const database = await openDatabase(${JSON.stringify(db.url)}, { migrate: false });
const stores = await openEventStores({ config: ${JSON.stringify(config)}, database });
const ws = ${JSON.stringify(ws.id)}, link = ${JSON.stringify(link.id)}, t = Date.now() - 60_000;
const rows = [];
for (let i = 0; i < 20; i++) rows.push(contractEvent(ws, link, { id: 'clk_keep_' + i, click_id: 'clk_keep_' + i, timestamp: t + i, ip: '203.0.113.' + i }));
for (let i = 0; i < 5; i++) rows.push(contractEvent(ws, link, { id: 'clk_ip_' + i, click_id: 'clk_ip_' + i, timestamp: t + 100 + i, ip: ${JSON.stringify(ERASED_IP)} }));
rows.push(contractEvent(ws, link, { kind: 'lead', id: 'evt_lead_ip', click_id: 'clk_ip_0', timestamp: t + 200, ip: ${JSON.stringify(ERASED_IP)}, customer_id: 'cus_ip', event_name: 'Sign up' }));
rows.push(contractEvent(ws, link, { kind: 'lead', id: 'evt_lead_gone', timestamp: t + 201, customer_id: 'cus_gone', event_name: 'Sign up' }));
rows.push(contractEvent(ws, link, { kind: 'sale', id: 'evt_sale_gone', timestamp: t + 202, customer_id: 'cus_gone', amount: 900, invoice_id: 'inv_gone', sale_type: 'new' }));
rows.push(contractEvent(ws, link, { kind: 'lead', id: 'evt_lead_keep', timestamp: t + 203, customer_id: 'cus_keep', event_name: 'Sign up' }));
rows.push(contractEvent(ws, link, { kind: 'sale', id: 'evt_sale_keep', timestamp: t + 204, customer_id: 'cus_keep', amount: 500, invoice_id: 'inv_keep', sale_type: 'new' }));
await stores.events.append(rows);
// The counters as tracking and the fold keep them.
await database.db.updateTable('links').set({ clicks: 25, leads: 3, sales: 2, sale_amount: 1400, conversions: 2 }).where('id', '=', link).execute();
// The metadata halves, committed: the customer's (the main thread's, in its own transaction) and the address's (the log's own).
await database.db.transaction().execute((trx) => stores.conversions.forgetCustomer(ws, 'cus_gone', trx));
await stores.column.eraseMetadataOnly({ column: 'ip', values: [${JSON.stringify(ERASED_IP)}] });
console.log('halves committed');
process.kill(process.pid, 'SIGKILL');
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
    assert.equal(signal, 'SIGKILL');
    assert.match(out, /halves committed/, 'the child reached the kill');

    // Between the halves: the metadata side is done, the hand-offs wait.
    const after = await openDatabase(db.url, { migrate: false });
    try {
      assert.equal(await pendingErasures(after.db), 2, 'both hand-offs committed, none applied');
      const metadataIds = (await after.db.selectFrom('events').select('id').orderBy('id').execute()).map((r) => r.id);
      assert.deepEqual(metadataIds, ['evt_lead_keep', 'evt_sale_keep'], 'the metadata half erased the customer and the address');

      // The restart: opening the store finishes what was handed off.
      const stores = await openEventStores({ config, database: after });
      try {
        assert.equal(await pendingErasures(after.db), 0, 'no hand-off left');
        const ids = (await stores.column!.engine.query({ text: 'SELECT id FROM events ORDER BY id', params: [] })).map((r) => String(r.id));
        const kept = [...Array.from({ length: 20 }, (_, i) => `clk_keep_${i}`), 'evt_lead_keep', 'evt_sale_keep'].sort();
        assert.deepEqual(ids, kept, 'every other event stays, the erased ones are gone from the column store');
        const counters = await after.db.selectFrom('links').select(['clicks', 'leads', 'sales', 'sale_amount', 'conversions']).where('id', '=', link.id).executeTakeFirstOrThrow();
        assert.deepEqual(
          { clicks: Number(counters.clicks), leads: Number(counters.leads), sales: Number(counters.sales), sale_amount: Number(counters.sale_amount), conversions: Number(counters.conversions) },
          { clicks: 20, leads: 1, sales: 1, sale_amount: 500, conversions: 1 },
          'the counters count what is left, each erased event subtracted once',
        );
        assert.deepEqual(await stores.events.forgetIp(ERASED_IP), { clicks: 0, leads: 0, sales: 0, pending: 0 }, 'nothing of the address left to erase');
      } finally {
        await stores.close();
      }
    } finally {
      await after.close();
    }
  } finally {
    await db.dispose();
  }
});

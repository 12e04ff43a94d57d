/**
 * `wait` means committed: the real server (`src/main.ts`) runs as a child process, answers a
 * lead in `wait` mode and a sale, is killed with SIGKILL right after each answer (no shutdown
 * hooks run), and the rows are read back from a freshly opened database.
 * Runs on the engine under test: a temp SQLite file, or a temporary PostgreSQL database.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Insertable } from 'kysely';
import type { LinksTable } from '../db/tables.js';
import { openDatabase, type OpenDatabase } from '../db/open.js';
import { TEST_ENGINE } from '../test-support/harness.js';
import { newClickId, newId } from '../ids.js';
import { entryArgs } from '../test-support/entry.js';

const API_KEY = `wm_durability_${randomBytes(6).toString('hex')}`;
let url: string;
let cleanup: () => Promise<void>;

before(async () => {
  if (TEST_ENGINE === 'postgres') {
    const admin = process.env.DATABASE_URL!;
    const name = `wm_durability_${randomBytes(4).toString('hex')}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    const u = new URL(admin);
    u.pathname = `/${name}`;
    url = u.toString();
    cleanup = async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'waymark-durability-'));
    url = `file:${join(dir, 'waymark.db')}`;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
});
after(() => cleanup());

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `src/main.ts` and resolves once /ready answers 200 (/health answers from the start's first step). */
async function startServer(): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The SQL event store: the test writes its click into the metadata database from outside the
  // server, which only that store reads clicks from (an event file is held by the server). Leads
  // and sales are the ConversionStore's, in the metadata database, whatever the event store.
  const child = spawn(process.execPath, entryArgs('src/main.ts'), {
    cwd: process.cwd(),
    env: { ...process.env, DATABASE_URL: url, EVENTS_URL: 'sql', WAYMARK_API_KEY: API_KEY, PORT: String(port), BASE_URL: base, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      if ((await fetch(`${base}/ready`)).ok) return { child, base };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start: ${stderr}`);
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function withDb<T>(fn: (db: OpenDatabase) => Promise<T>): Promise<T> {
  const database = await openDatabase(url, { migrate: false });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('a wait-mode lead and a sale survive SIGKILL right after their answers', { timeout: 120_000 }, async () => {
  let { child, base } = await startServer();
  const clickId = newClickId();
  const linkId = newId('link');
  try {
    // The default workspace exists now; add a link and a click to it from outside the server.
    await withDb(async ({ db }) => {
      const ws = await db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
      const now = Date.now();
      await db
        .insertInto('links')
        .values({ id: linkId, workspace_id: ws.id, domain: 'wm.localhost', key: 'dur', key_lower: 'dur', url: 'https://example.com/', short_link: 'http://wm.localhost/dur', track_conversion: 1, created_at: now, updated_at: now } as Insertable<LinksTable>)
        .execute();
      await db
        .insertInto('events')
        .values({
          workspace_id: ws.id, timestamp: now, id: clickId, kind: 'click', click_id: clickId, link_id: linkId, domain: 'wm.localhost', key: 'dur',
          url: 'https://example.com/', country: 'NL', city: 'Amsterdam', region: 'NL-NH', continent: 'EU', device: 'Desktop', browser: 'Chrome',
          os: 'Mac OS', referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '', ua: 'Mozilla/5.0', amount: 0,
        })
        .execute();
    });

    const lead = await post(base, '/track/lead', { clickId, eventName: 'Sign up', customerExternalId: 'durable-1', mode: 'wait' });
    assert.equal(lead.status, 200, await lead.clone().text());
    await killHard(child);

    await withDb(async ({ db }) => {
      const events = await db.selectFrom('events').select(['kind', 'event_name', 'click_id']).where('kind', '=', 'lead').execute();
      assert.deepEqual(events, [{ kind: 'lead', event_name: 'Sign up', click_id: clickId }]);
      const link = await db.selectFrom('links').select(['leads']).where('id', '=', linkId).executeTakeFirstOrThrow();
      assert.equal(link.leads, 1);
      const customer = await db.selectFrom('customers').select(['external_id', 'click_id']).executeTakeFirstOrThrow();
      assert.deepEqual(customer, { external_id: 'durable-1', click_id: clickId });
    });

    ({ child, base } = await startServer());
    const sale = await post(base, '/track/sale', { customerExternalId: 'durable-1', amount: 4200, invoiceId: 'inv-durable' });
    assert.equal(sale.status, 200, await sale.clone().text());
    assert.equal((await sale.json()).sale.amount, 4200);
    await killHard(child);

    await withDb(async ({ db }) => {
      const sales = await db.selectFrom('events').select(['amount', 'invoice_id', 'sale_type']).where('kind', '=', 'sale').execute();
      assert.deepEqual(sales, [{ amount: 4200, invoice_id: 'inv-durable', sale_type: 'new' }]);
      const link = await db.selectFrom('links').select(['sales', 'sale_amount', 'conversions']).where('id', '=', linkId).executeTakeFirstOrThrow();
      assert.deepEqual(link, { sales: 1, sale_amount: 4200, conversions: 1 });
      const customer = await db.selectFrom('customers').select(['sales', 'sale_amount']).executeTakeFirstOrThrow();
      assert.deepEqual(customer, { sales: 1, sale_amount: 4200 });
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) await killHard(child);
  }
});

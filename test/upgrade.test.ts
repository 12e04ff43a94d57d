/**
 * Upgrades keep every byte (issue 29): the data of earlier versions, made by those versions
 * (test/upgrade/old-version.ts: each started from its commit's source and driven over HTTP), is
 * opened by the current code, which must answer the same links, customers, events, counters and
 * analytics, and write the clicks the old version left in a spill file (in its format, by its own
 * code) at the next start.
 *
 * Versions: the first that recorded clicks (8add622: redirect, tracking and analytics on the first
 * schema), the last before the column store (dd43ac9, SQL event store, spill files), and the
 * last with a click journal (fe93bd3: a click batch its journal committed and the column store
 * never took, as a crash left it, written by its own code), and the current source restarted on
 * its own data. On SQLite the current code opens them with its
 * default DuckDB event file (the upgrade copies every event into it); with DATABASE_URL set to
 * PostgreSQL, on PostgreSQL, each version in a database of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { isPostgresUrl, openDatabase } from '../src/db/open.js';
import { buildApp } from '../src/app.js';
import { UPGRADE_KEY, extractVersion, seed, startVersion, views, type ExtractedVersion, type Seeded, type Views } from './upgrade/old-version.js';

// Tests run from the repository's root (npm test), transpiled or not.
const REPO = process.cwd();
const PG_URL = isPostgresUrl(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL! : undefined;
const SPILLED = 3;

const freePort = () =>
  new Promise<number>((resolvePort) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolvePort(port));
    });
  });

/** A database for one version: a SQLite file in its own folder, or a PostgreSQL database of its own. */
async function freshDatabase(): Promise<{ url: string; spillDir: string; sqlitePath?: string; drop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-upgrade-'));
  const spillDir = join(dir, 'click-spill');
  if (!PG_URL) {
    const sqlitePath = join(dir, 'waymark.db');
    return { url: `file:${sqlitePath}`, sqlitePath, spillDir, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `upgrade_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    spillDir,
    drop: async () => {
      rmSync(dir, { recursive: true, force: true });
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * Clicks the old version's shutdown could not commit, in a spill file written by the old
 * version's own click-spill.ts (when it has one): on the first link, from new addresses.
 */
async function spillWithOldCode(version: ExtractedVersion, db: { url: string; sqlitePath?: string; spillDir: string }, seeded: Seeded): Promise<string[]> {
  const module = join(version.dir, 'src/redirect/click-spill.ts');
  if (!existsSync(module)) return [];
  // The old version's TypeScript sources need tsx's loader (tests run transpiled: run-tests.mjs).
  const { register } = await import('tsx/esm/api');
  register();
  const spill = (await import(pathToFileURL(module).href)) as typeof import('../src/redirect/click-spill.js');
  // Click ids moved to visitors/ with the event log's own thread.
  const clickIds = ['src/visitors/click-id.ts', 'src/redirect/click-id.ts'].map((p) => join(version.dir, p)).find((p) => existsSync(p))!;
  const ids = (await import(pathToFileURL(clickIds).href)) as typeof import('../src/visitors/click-id.js');
  const link = seeded.links[0]!;
  const now = Date.now();
  const rows = Array.from({ length: SPILLED }, (_, i) => ({
    id: ids.newClickIdAt(now - 1000 + i),
    timestamp: now - 1000 + i,
    linkId: link.id,
    workspaceId: seeded.workspaceId,
    domain: 'go.upgrade.test',
    key: link.key,
    url: 'https://shop.example.com/spring?utm_source=mail',
    ip: `81.2.69.${200 + i}`,
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    referer: '',
    qr: false,
    geo: null,
  }));
  // Versions before the open database knew its identity computed it in click-spill.ts.
  const legacy = spill as unknown as { databaseIdentity?: (d: { sqlitePath?: string; url: string }) => string };
  const identity = legacy.databaseIdentity ? legacy.databaseIdentity({ sqlitePath: db.sqlitePath, url: db.url }) : await identityOf(db.url);
  spill.writeSpillFile(db.spillDir, identity, rows);
  return rows.map((r) => r.id);
}

async function identityOf(url: string): Promise<string> {
  const database = await openDatabase(url, { migrate: false });
  try {
    return database.identity;
  } finally {
    await database.close();
  }
}

/**
 * A click batch the last version with a click journal (SQLite with DuckDB) committed and died
 * before the column store appended it or the link counters were folded: written by that
 * version's own journal code, as its click writer did; the current code's first start must store
 * and count it once, then drop the journal.
 */
async function journalWithOldCode(version: ExtractedVersion, db: { url: string }, seeded: Seeded): Promise<string[]> {
  if (PG_URL) return [];
  const { register } = await import('tsx/esm/api');
  register();
  const old = async (path: string) => import(pathToFileURL(join(version.dir, path)).href);
  const { openDatabase: openOld } = await old('src/db/open.ts');
  const { createClickJournal } = await old('src/events/column/click-journal.ts');
  const { createLinkCounters } = await old('src/links/counters.ts');
  const { duckDbPathFor } = await old('src/events/duckdb/path.ts');
  const { newClickIdAt } = await old('src/redirect/click-id.ts');
  const database = await openOld(db.url, { migrate: false });
  try {
    const journal = createClickJournal({ db: database.db, counters: createLinkCounters(database.dialect), dir: `${duckDbPathFor('duckdb', database)}.batches` });
    await journal.recover();
    const link = seeded.links[0]!;
    const now = Date.now();
    const rows = [0, 1].map((i) => {
      const id = newClickIdAt(now - 500 + i) as string;
      return {
        workspace_id: seeded.workspaceId, timestamp: now - 500 + i, id, kind: 'click', click_id: id, link_id: link.id, domain: 'go.upgrade.test', key: link.key,
        url: 'https://shop.example.com/spring?utm_source=mail', country: 'DE', city: 'Berlin', region: 'DE-BE', continent: 'EU', device: 'Mobile', browser: 'Safari',
        os: 'iOS', referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: `81.2.69.${220 + i}`, ua: 'Mozilla/5.0 (iPhone)',
      };
    });
    await journal.write(rows);
    return rows.map((r) => r.id);
  } finally {
    await database.close();
  }
}

/** The current code on the old data: migrations, the event store's upgrade, the spill replay. */
async function openWithCurrentCode(db: { url: string; spillDir: string }) {
  const config = loadConfig({ DATABASE_URL: db.url, PORT: '3999', BASE_URL: 'http://localhost:3999', SHORT_DOMAIN: 'go.upgrade.test', WAYMARK_API_KEY: UPGRADE_KEY, LOG_LEVEL: 'silent', CLICK_SPILL_DIR: db.spillDir });
  const database = await openDatabase(config.databaseUrl);
  const { app, modules } = await buildApp({ config, database, logger: false });
  const replay = await modules.redirect.replaySpilledClicks();
  await modules.redirect.flushClicks();
  const get = async (path: string) => {
    const res = await app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${UPGRADE_KEY}` } });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
    return res.json() as unknown;
  };
  return {
    replay,
    get,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}

/** `before` with the spilled clicks added: on the first link, in the events and the analytics totals. */
function withSpilled(before: Views, linkId: string, count: number): Pick<Views, 'links'> & { clicks: number } {
  return {
    links: before.links.map((l) => (l.id === linkId ? { ...l, clicks: (l.clicks as number) + count } : l)),
    clicks: (before.analytics.count as { clicks: number }).clicks + count,
  };
}

/** `journal`: the version runs on its default event store (DuckDB on SQLite) and leaves a click batch in its journal. */
async function upgradeFrom(commit: string | 'current', options: { journal?: boolean } = {}) {
  const version: ExtractedVersion = commit === 'current' ? { commit: 'current', dir: REPO, remove: () => undefined } : await extractVersion(commit);
  const db = await freshDatabase();
  try {
    const server = await startVersion(version, { DATABASE_URL: db.url, CLICK_SPILL_DIR: db.spillDir, ...(commit === 'current' || options.journal ? {} : { EVENTS_URL: 'sql' }) }, await freePort());
    let seeded: Seeded;
    let before: Views;
    try {
      seeded = await seed(server);
      before = await views(server.get);
    } finally {
      await server.stop();
    }
    assert.equal((before.analytics.count as { clicks: number }).clicks, 15, 'the old version recorded every click');
    assert.equal(before.customers.length, 2);
    assert.equal(before.events.sales!.length, 3);
    const spillFiles = await spillWithOldCode(version, db, seeded);
    const journaled = options.journal ? await journalWithOldCode(version, db, seeded) : [];
    const spilled = [...spillFiles, ...journaled];

    const current = await openWithCurrentCode(db);
    try {
      assert.equal(current.replay.written, spillFiles.length, 'every spilled click written at the start');
      assert.deepEqual(current.replay.kept, []);
      if (spillFiles.length) assert.deepEqual(readdirSync(db.spillDir).filter((f) => f.endsWith('.jsonl')), [], 'the replayed spill file is removed');
      const after = await views(current.get);
      const expected = withSpilled(before, seeded.links[0]!.id, spilled.length);
      assert.deepEqual(after.links, expected.links, 'links and their counters');
      assert.deepEqual(after.customers, before.customers, 'customers');
      assert.deepEqual(after.events.leads, before.events.leads, 'every lead');
      assert.deepEqual(after.events.sales, before.events.sales, 'every sale');
      const oldClicks = after.events.clicks!.filter((e) => !spilled.includes(String((e as { click: { id: string } }).click.id)));
      assert.deepEqual(oldClicks, before.events.clicks, 'every click of the old version, unchanged');
      assert.equal(after.events.clicks!.length - oldClicks.length, spilled.length, 'and the spilled and journaled ones');
      assert.deepEqual(after.analytics.count, { ...(before.analytics.count as object), clicks: expected.clicks });
      if (!spilled.length) assert.deepEqual(after.analytics, before.analytics, 'every grouping of the analytics');
      else {
        for (const groupBy of ['countries', 'devices', 'referers', 'top_links']) {
          const sum = (rows: unknown) => (rows as { clicks: number; leads: number; sales: number; saleAmount: number }[]).reduce((s, r) => ({ clicks: s.clicks + r.clicks, leads: s.leads + r.leads, sales: s.sales + r.sales, saleAmount: s.saleAmount + r.saleAmount }), { clicks: 0, leads: 0, sales: 0, saleAmount: 0 });
          assert.deepEqual(sum(after.analytics[groupBy]), { ...sum(before.analytics[groupBy]), clicks: sum(before.analytics[groupBy]).clicks + spilled.length }, groupBy);
        }
      }
    } finally {
      await current.close();
    }
  } finally {
    await db.drop();
    version.remove();
  }
}

// Each starts a version from its source and the current code after it: under a minute on a quiet
// machine, two on a loaded one; above the runner's default of 120 s.
const SLOW = { timeout: 600_000 };

test('upgrade from the first version that recorded clicks (8add622, the first schema)', SLOW, async () => {
  await upgradeFrom('8add622d1bd895311ec226b7aa04a81e7d9e7a81');
});

test('upgrade from the last version before the column store (dd43ac9): its spill file is replayed', SLOW, async () => {
  await upgradeFrom('dd43ac9df036010a85c887da8b0711380cf61e43');
});

test('upgrade from the last version with a click journal (fe93bd3): a batch its journal holds is stored and counted once (SQLite, DuckDB)', { ...SLOW, skip: PG_URL ? 'the click journal existed only beside a SQLite file' : false }, async () => {
  await upgradeFrom('fe93bd384885017aebc524d0663d4757990e0029', { journal: true });
});

test('a restart of the current version on its own data, with a spill file', SLOW, async () => {
  await upgradeFrom('current');
});

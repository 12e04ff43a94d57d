/**
 * The real process: `node src/main.ts` with a temporary database and a known API key. A link made
 * with POST /links redirects at its `shortLink` (also with curl, which resolves *.localhost), and
 * SIGTERM in the middle of a load loses no click.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../db/open.js';
import { TEST_ENGINE } from '../test-support/harness.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise((r) => server.close(r));
  return typeof address === 'object' && address ? address.port : 0;
}

/** A database URL private to this test: a temp SQLite file, or a fresh schema through `search_path`. */
async function privateDatabase(): Promise<{ url: string; open(): ReturnType<typeof openDatabase>; dispose(): Promise<void> }> {
  if (TEST_ENGINE === 'postgres') {
    const envUrl = process.env.DATABASE_URL!;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: envUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    // Migrate here: main.ts reaches the schema only through search_path, and Kysely's migrator,
    // not told the schema, would trip over other test schemas' migration tables.
    await (await openDatabase(envUrl, { pgSchema: schema })).close();
    const url = `${envUrl}${envUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    return {
      url,
      open: () => openDatabase(envUrl, { pgSchema: schema, migrate: false }),
      dispose: async () => {
        const c = new pg.Client({ connectionString: envUrl });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'waymark-sigterm-'));
  const url = `file:${join(dir, 'waymark.db')}`;
  return { url, open: () => openDatabase(url, { migrate: false }), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
}

test('SIGTERM during load: the process drains, flushes and exits 0 with every answered click stored', async () => {
  const db = await privateDatabase();
  const port = await freePort();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', WAYMARK_API_KEY: key, TRUST_PROXY: 'true', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const deadline = Date.now() + 60_000;
    while (!output.includes('Waymark is running')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const created = await fetch(`http://localhost:${port}/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/from-api', key: 'term' }),
    });
    assert.equal(created.status, 200, await created.clone().text());
    const { shortLink, id } = (await created.json()) as { shortLink: string; id: string };
    assert.equal(shortLink, `http://wm.localhost:${port}/term`);

    if (!spawnSync('curl', ['--version']).error) {
      const curl = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code} %{redirect_url}', shortLink], { encoding: 'utf8' });
      assert.equal(curl.stdout, '302 https://example.com/from-api', curl.stderr);
    }

    const agent = new Agent({ keepAlive: true, maxSockets: 12 });
    const target = new URL(shortLink);
    let answered = 0;
    let sent = 0;
    let stop = false;
    const one = (n: number) =>
      new Promise<void>((resolve) => {
        const req = request(
          { host: '127.0.0.1', port, path: target.pathname, agent, headers: { host: target.host, 'user-agent': CHROME, 'x-forwarded-for': `10.8.${(n >> 8) & 255}.${n & 255}` } },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode === 302) answered++;
              resolve();
            });
          },
        );
        req.on('error', () => {
          stop = true;
          resolve();
        });
        req.end();
      });
    const loop = async () => {
      while (!stop && sent < 60_000) await one(sent++);
    };
    const load = Promise.all(Array.from({ length: 12 }, loop));
    while (answered < 500 && !stop) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM');
    const code = await exited;
    stop = true;
    await load;
    agent.destroy();
    assert.equal(code, 0, output);
    assert.ok(answered >= 500, `answered ${answered}`);

    const database = await db.open();
    try {
      const events = await database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('link_id', '=', id).executeTakeFirstOrThrow();
      const link = await database.db.selectFrom('links').select('clicks').where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(Number(events.n), answered, `every answered click is stored\n${output}`);
      assert.equal(Number(link.clicks), answered);
    } finally {
      await database.close();
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await db.dispose();
  }
});

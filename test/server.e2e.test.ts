/**
 * The real process: `node src/main.ts` prints its address, key and dashboard setup address (on
 * stderr: stdout is the JSON log alone), serves with WAYMARK_API_KEY, the banner's "try it"
 * command works as printed, and it exits 0 on SIGTERM.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg_ from 'pg';
import { isPostgresUrl } from '../src/db/open.js';
import { entryArgs } from '../src/test-support/entry.js';

const PgClient = pg_.Client;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function startServer(env: Record<string, string>) {
  const child = spawn(process.execPath, entryArgs('src/main.ts'), {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (d) => ((output += d), (stdout += d)));
  child.stderr.on('data', (d) => (output += d));
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    child.stderr.on('data', () => {
      if (/Try it.*\n.*curl .*\n/s.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exited, output: () => output, stdout: () => stdout };
}

/** Runs the banner's "try it" curl command in a shell as a user would paste it; returns the HTTP status. */
function runTryIt(banner: string, env: Record<string, string> = {}): number {
  const command = /^\s+(curl -H .*)$/m.exec(banner.slice(banner.indexOf('Try it')))![1]!;
  return Number(execFileSync('bash', ['-c', `${command} -s -o /dev/null -w '%{http_code}'`], { env: { ...process.env, ...env }, encoding: 'utf8' }));
}

const pg = isPostgresUrl(process.env.DATABASE_URL ?? '');

test('first start prints the address and a key that works; SIGTERM exits 0', { skip: pg ? 'first-start key printing is checked on the SQLite leg (the PostgreSQL database is shared)' : false }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-e2e-'));
  const port = await freePort();
  try {
    const s = startServer({ PORT: String(port), DATABASE_URL: `file:${join(dir, 'w.db')}`, WAYMARK_API_KEY: '' });
    const out = await s.ready;
    assert.match(out, new RegExp(`API:\\s+http://localhost:${port}`));
    const key = /API key:\s+(wm_\w+)/.exec(out)![1]!;
    const ws = /Workspace:\s+(ws_\w+)/.exec(out)![1]!;
    const res = await fetch(`http://127.0.0.1:${port}/workspaces/${ws}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).plan, 'enterprise');
    assert.equal(runTryIt(out), 200, 'the banner\'s command, pasted, answers 200');
    assert.equal(s.stdout().includes('Waymark is running'), false, 'the banner is on stderr');
    const noKey = await fetch(`http://127.0.0.1:${port}/workspaces/${ws}`);
    assert.equal(noKey.status, 401);
    assert.equal((await noKey.json()).error.code, 'unauthorized');
    // No dashboard user yet: the banner's one-time setup address opens the setup form.
    const setup = new RegExp(`http://localhost:${port}/setup\\?token=([\\w-]{43})\n`).exec(out)![1]!;
    const page = await fetch(`http://127.0.0.1:${port}/setup?token=${setup}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form method="post" action="\/setup"/);
    s.child.kill('SIGTERM');
    assert.equal(await s.exited, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('WAYMARK_API_KEY belongs to the default workspace', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-e2e-'));
  const port = await freePort();
  const key = `wm_test_${Math.random().toString(36).slice(2)}`;
  // On PostgreSQL a schema of its own: in `public`, Kysely's migrator would find the lock table
  // of another test's schema and skip creating its own.
  const schema = `t_e2e_${Math.random().toString(36).slice(2, 10)}`;
  const databaseUrl = pg ? withSchema(process.env.DATABASE_URL!, schema) : `file:${join(dir, 'other.db')}`;
  try {
    const s = startServer({ PORT: String(port), DATABASE_URL: databaseUrl, WAYMARK_API_KEY: key, LOG_LEVEL: 'info' });
    const out = await s.ready;
    const ws = /Workspace:\s+(ws_\w+)/.exec(out)![1]!;
    assert.equal(out.includes(key), false, 'a key from the environment is never printed');
    const res = await fetch(`http://127.0.0.1:${port}/workspaces/${ws}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 200);
    // Pasted with the variable set, as the banner says, the command answers 200 (a masked key answered 401).
    assert.equal(runTryIt(out, { WAYMARK_API_KEY: key }), 200);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(health.status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${port}/ready`)).status, 200);
    s.child.kill('SIGINT');
    assert.equal(await s.exited, 0);
    // stdout is the JSON log alone (`journalctl -o cat … | jq` reads it); probes are not logged at info.
    const lines = s.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; url?: string; msg: string });
    assert.ok(lines.some((l) => l.msg === 'request' && l.url === `/workspaces/${ws}` && l.level === 30), 'API requests are logged at info');
    assert.equal(lines.some((l) => l.url === '/ready' || l.url === '/health'), false, 'probes are not logged at info');
    // The journal holds stdout and stderr together: docs/operations.md's jq command reads it.
    const jq = spawnSync('jq', ['-R', '-c', 'fromjson? | select(.level >= 30) | .msg'], { input: s.output(), encoding: 'utf8' });
    assert.equal(jq.status, 0, jq.stderr);
    assert.match(jq.stdout, /"request"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (pg) await dropSchema(process.env.DATABASE_URL!, schema);
  }
});

function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  return u.toString();
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}

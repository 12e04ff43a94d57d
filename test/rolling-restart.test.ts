/**
 * Several processes behind one proxy (docs/deploy.md, "Several processes behind one proxy"): two
 * Waymark processes on one PostgreSQL database behind Debian's caddy (2.6) with two upstreams,
 * active health checks on /ready and lb_try_duration. Under a load of new clicks, each process in
 * turn is stopped (SIGTERM) and started again: no request is lost (every one answered 302) and
 * every answered click is stored once.
 * PostgreSQL only: on SQLite one process owns the database file. Needs `caddy`
 * (`apt-get install caddy`), as test/caddy.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_ENGINE } from '../src/test-support/harness.js';
import { createLink, freePort, privateDatabase, startClickLoad, startServer, type ServerProcess } from '../src/test-support/server-process.js';

const caddyMissing = spawnSync('caddy', ['version']).status !== 0;
const skip = TEST_ENGINE !== 'postgres' ? 'PostgreSQL only: processes share the database there' : caddyMissing ? 'caddy is not installed (apt-get install caddy)' : false;
const SHORT_DOMAIN = 'go.rolling.test';

/** docs/deploy.md's block for two processes, on plain HTTP for the test. */
export function twoUpstreamCaddyfile(proxyPort: number, ports: readonly number[]): string {
  return `{
	admin off
	auto_https off
}
:${proxyPort} {
	reverse_proxy ${ports.map((p) => `127.0.0.1:${p}`).join(' ')} {
		lb_policy round_robin
		lb_try_duration 5s
		lb_try_interval 100ms
		health_uri /ready
		health_interval 500ms
		health_timeout 2s
		trusted_proxies private_ranges
	}
}
`;
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a rolling restart of two processes behind caddy loses no request and no click', { skip, timeout: 300_000 }, async (t) => {
  const db = await privateDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'waymark-rolling-'));
  const key = `wm_${randomBytes(12).toString('hex')}`;
  const ports = [await freePort(), await freePort()];
  const proxyPort = await freePort();
  const env = { SHORT_DOMAIN, BASE_URL: 'http://api.rolling.test', TRUST_PROXY: 'true', VISITOR_IP: 'full' };
  const servers: ServerProcess[] = [];
  let caddy: ChildProcess | undefined;
  let caddyLog = '';
  try {
    servers[0] = await startServer(db.url, ports[0]!, key, env);
    servers[1] = await startServer(db.url, ports[1]!, key, env);
    writeFileSync(join(dir, 'Caddyfile'), twoUpstreamCaddyfile(proxyPort, ports));
    caddy = spawn('caddy', ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], { env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    caddy.stdout!.on('data', (d) => (caddyLog += d));
    caddy.stderr!.on('data', (d) => (caddyLog += d));
    const link = await createLink(ports[0]!, key, { url: 'https://example.com/rolling', key: 'rolling' });
    await until('caddy to proxy', async () => {
      if (caddy!.exitCode !== null) throw new Error(`caddy exited:\n${caddyLog}`);
      return fetch(`http://127.0.0.1:${proxyPort}/health`).then((r) => r.ok, () => false);
    });

    const load = startClickLoad({ port: proxyPort, host: SHORT_DOMAIN, path: '/rolling', ipPrefix: '10.77', connections: 6, max: 60_000 });
    const answeredAtLeast = (n: number) => until(`${n} answered clicks`, () => load.answered.size >= n);
    await answeredAtLeast(300);
    for (const i of [0, 1]) {
      // Stop one process under load, start it again, wait until the proxy sends it traffic again.
      servers[i]!.child.kill('SIGTERM');
      assert.equal(await servers[i]!.exited, 0, servers[i]!.output());
      await answeredAtLeast(load.answered.size + 200);
      servers[i] = await startServer(db.url, ports[i]!, key, env);
      await until('the restarted process to be ready', () => fetch(`http://127.0.0.1:${ports[i]}/ready`).then((r) => r.ok, () => false));
      await new Promise((r) => setTimeout(r, 1_500));
      await answeredAtLeast(load.answered.size + 200);
    }
    await load.stop();
    const lost = [...load.sent].filter((ip) => !load.answered.has(ip));
    t.diagnostic(`${load.sent.size} requests through caddy during two restarts, ${load.answered.size} answered 302`);
    assert.deepEqual(lost, [], `${lost.length} of ${load.sent.size} requests not answered 302`);
    // Every answered click stored once (the link's counter, on PostgreSQL updated with each batch).
    const clicks = async () => ((await (await fetch(`http://127.0.0.1:${ports[0]}/links/${link.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { clicks: number }).clicks;
    await until('every answered click counted', async () => (await clicks()) >= load.answered.size, 30_000);
    assert.equal(await clicks(), load.answered.size);
  } finally {
    caddy?.kill('SIGTERM');
    for (const s of servers) if (s && s.child.exitCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s?.exited));
    await db.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * The container image as a self-hoster runs it (.ci/docker.sh builds it and runs this file with
 * WAYMARK_IMAGE and DOCKER_HOST set): `docker run` on a volume with host networking, the README's
 * quick start (a link, a browser's click, read back), the dub SDK against it, `docker stop` under a
 * click load (every acknowledged redirect counted after the restart), and a second `docker run` on
 * the same volume that keeps every link and event. Without WAYMARK_IMAGE it skips, saying so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Agent, request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { Dub } from 'dub';
import { freePort } from '../../src/test-support/processes.js';
import { waitFor } from '../../src/test-support/http-probe.js';

const IMAGE = process.env.WAYMARK_IMAGE;
const SKIP = IMAGE ? false : 'needs an image: .ci/docker.sh image && .ci/docker.sh test (WAYMARK_IMAGE, DOCKER_HOST)';
const run = promisify(execFile);
const docker = async (...args: string[]) => (await run('/usr/bin/docker', args, { maxBuffer: 64 * 2 ** 20 })).stdout.trim();

const suffix = randomBytes(4).toString('hex');
const volume = `waymark-ci-${suffix}`;
const key = `wm_ci_${randomBytes(12).toString('hex')}`;
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
let port = 0;
let container = '';
let runs = 0;

/** `docker run` of the image on the volume; resolves with the ms from `docker run` to /ready 200. */
async function start(): Promise<number> {
  const t0 = Date.now();
  container = `waymark-ci-${suffix}-${++runs}`;
  await docker('run', '-d', '--name', container, '--network', 'host', '-v', `${volume}:/data`,
    '-e', `PORT=${port}`, '-e', `BASE_URL=http://localhost:${port}`, '-e', `WAYMARK_API_KEY=${key}`, '-e', 'LOG_LEVEL=info', IMAGE!);
  await waitFor(`${container} to be ready`, async () => {
    const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
    if (res) await res.body?.cancel();
    if (res?.status === 200) return true;
    if ((await docker('inspect', '-f', '{{.State.Running}}', container)) !== 'true') throw new Error(`${container} exited:\n${await logs()}`);
    return false;
  }, 120_000);
  return Date.now() - t0;
}

const logs = async () => {
  const { stdout, stderr } = await run('/usr/bin/docker', ['logs', container], { maxBuffer: 64 * 2 ** 20 });
  return { stdout, stderr, toString: () => `${stdout}\n${stderr}` };
};

/** `docker stop` (SIGTERM, then docker's 10 s); resolves with the exit code and the ms it took. */
async function stop(): Promise<{ code: number; ms: number }> {
  const t0 = Date.now();
  await docker('stop', container);
  const ms = Date.now() - t0;
  return { code: Number(await docker('inspect', '-f', '{{.State.ExitCode}}', container)), ms };
}

async function api<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A browser's visit of the short link (Host: the short domain); the redirect's status and Location.
 * `visitor` makes the user agent one of its own: the same visitor again within an hour is one click.
 */
function visit(path: string, agent?: Agent, visitor = 0): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const ua = visitor ? `${BROWSER_UA} visitor/${visitor}` : BROWSER_UA;
    const req = request({ host: '127.0.0.1', port, path, agent, headers: { host: `wm.localhost:${port}`, 'user-agent': ua } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The link's click count once the event log has folded it (it trails the redirect by ~1 s). */
async function clicksOf(id: string, expected: number): Promise<number> {
  let clicks = -1;
  await waitFor(`link ${id} to count ${expected} clicks`, async () => {
    clicks = (await api('GET', `/links/${id}`)).body.clicks;
    return clicks >= expected;
  }, 30_000).catch(() => undefined);
  return clicks;
}

before(async () => {
  if (SKIP) return;
  port = await freePort();
  await docker('volume', 'create', volume);
});

after(async () => {
  if (SKIP) return;
  for (let i = 1; i <= runs; i++) await docker('rm', '-f', `waymark-ci-${suffix}-${i}`).catch(() => undefined);
  await docker('volume', 'rm', '-f', volume).catch(() => undefined);
});

let linkId = '';
let key2Links: string[] = [];

test('the image: non-root, Node 24, no dev packages, tests or benchmarks; /data a volume; a health check on /ready', { skip: SKIP }, async (t) => {
  const config = JSON.parse(await docker('image', 'inspect', '-f', '{{json .Config}}', IMAGE!));
  assert.equal(config.User, 'node');
  assert.deepEqual(Object.keys(config.Volumes ?? {}), ['/data']);
  assert.ok(Object.keys(config.ExposedPorts ?? {}).includes('3000/tcp'));
  assert.match(config.Healthcheck.Test.join(' '), /\/ready/);
  assert.ok(config.Env.includes('DOMAIN_VERIFICATION=dns'));
  const inside = await docker('run', '--rm', '--network', 'none', '--entrypoint', 'sh', IMAGE!, '-c',
    'node -v; id -u; ls node_modules; ls node_modules/better-sqlite3/build/Release; ls; test -w /app && echo app-writable || echo app-read-only; waymark --help | head -1');
  const lines = inside.split('\n');
  assert.match(lines[0]!, /^v24\./);
  assert.equal(lines[1], '1000');
  for (const dev of ['chdb', 'playwright-core', 'typescript', 'tsx', 'esbuild', 'dub', 'oidc-provider']) assert.ok(!lines.includes(dev), `${dev} is in the image`);
  assert.ok(lines.includes('better_sqlite3.node') && lines.includes('fastify'));
  assert.ok(!lines.includes('src') && !lines.includes('test') && !lines.includes('bench'));
  assert.ok(lines.includes('app-read-only'));
  assert.equal(lines.at(-1), 'Usage: waymark <command> [options]', 'the `waymark` command is on PATH');
  const size = Number(await docker('image', 'inspect', '-f', '{{.Size}}', IMAGE!));
  t.diagnostic(`image ${IMAGE}: ${Math.round(size / 1e6)} MB`);
});

test('quick start: docker run on a volume, a link, a browser click, read back; then the SDK', { skip: SKIP }, async (t) => {
  const readyMs = await start();
  t.diagnostic(`docker run → /ready 200 in ${readyMs} ms (first start, migrations included)`);
  const created = await api('POST', '/links', { url: 'https://example.com/docker' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  linkId = created.body.id;
  const shortPath = new URL(created.body.shortLink).pathname;
  assert.deepEqual(await visit(shortPath), { status: 302, location: 'https://example.com/docker' });
  assert.equal(await clicksOf(linkId, 1), 1);
  const analytics = await api('GET', `/analytics?event=clicks&interval=all&linkId=${linkId}`);
  assert.equal(analytics.body.clicks, 1);

  // The official SDK, unmodified, against the container.
  const dub = new Dub({ token: key, serverURL: `http://127.0.0.1:${port}` });
  await dub.tags.create({ name: 'docker' });
  const sdkLink = await dub.links.create({ url: 'https://example.com/sdk', tagNames: ['docker'] });
  assert.equal(sdkLink.url, 'https://example.com/sdk');
  assert.deepEqual(sdkLink.tags?.map((tag) => tag.name), ['docker']);
  assert.equal((await dub.links.get({ linkId: sdkLink.id })).id, sdkLink.id);
  const listed = await dub.links.list({});
  key2Links = listed.result.map((l) => l.id).sort();
  assert.deepEqual(key2Links, [linkId, sdkLink.id].sort());
  assert.deepEqual(await dub.analytics.retrieve({ event: 'composite', interval: 'all' }), { clicks: 1, leads: 0, sales: 0, saleAmount: 0 });
  const events = await dub.events.list({ interval: 'all' });
  assert.deepEqual(events.map((e) => e.event), ['click']);

  // The container's health check (every 10 s) agrees.
  await waitFor('the health check to say healthy', async () => (await docker('inspect', '-f', '{{.State.Health.Status}}', container)) === 'healthy', 60_000);
});

test('docker stop under a click load loses no acknowledged click; a second docker run on the volume keeps every link and event', { skip: SKIP }, async (t) => {
  assert.ok(linkId, 'the quick start ran');
  const shortPath = new URL((await api('GET', `/links/${linkId}`)).body.shortLink).pathname;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let acknowledged = 0;
  let sent = 0;
  let visitors = 0;
  let stopping = false;
  const worker = async () => {
    while (true) {
      sent++;
      const visitor = ++visitors;
      try {
        const res = await visit(shortPath, agent, visitor);
        if (res.status === 302) acknowledged++;
        else if (stopping) return;
      } catch {
        if (stopping) return;
        sent--;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  };
  const load = Array.from({ length: 8 }, worker);
  await waitFor('some clicks under load', async () => acknowledged >= 300, 60_000);
  stopping = true;
  const stopped = await stop();
  await Promise.race([Promise.all(load), new Promise((r) => setTimeout(r, 15_000))]);
  agent.destroy();
  t.diagnostic(`docker stop after ${acknowledged} acknowledged redirects (${sent} sent): exit ${stopped.code} in ${stopped.ms} ms`);
  assert.equal(stopped.code, 0, `exit code ${stopped.code}:\n${await logs()}`);
  assert.ok(stopped.ms < 10_000, `docker stop took ${stopped.ms} ms: the process outlived its grace and was killed`);
  const { stdout } = await logs();
  const jsonLines = stdout.split('\n').filter((l) => l.startsWith('{'));
  assert.ok(jsonLines.some((l) => JSON.parse(l).msg === 'shutting down'), 'the JSON log on stdout says it shut down');

  const readyMs = await start();
  t.diagnostic(`docker run → /ready 200 in ${readyMs} ms (second start on the volume)`);
  const clicks = await clicksOf(linkId, 1 + acknowledged);
  t.diagnostic(`after the restart: ${clicks} clicks counted for ${1 + acknowledged} acknowledged`);
  assert.ok(clicks >= 1 + acknowledged, `${clicks} clicks counted, ${1 + acknowledged} acknowledged`);
  assert.ok(clicks <= 1 + sent, `${clicks} clicks counted, only ${1 + sent} sent`);
  const links = (await api('GET', '/links')).body.map((l: { id: string }) => l.id).sort();
  assert.deepEqual(links, key2Links);
  const events = await api('GET', `/analytics?event=clicks&interval=all`);
  assert.equal(events.body.clicks, clicks, 'the event log holds every counted click');
  const stoppedAgain = await stop();
  assert.equal(stoppedAgain.code, 0);
});

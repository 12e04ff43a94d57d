/**
 * The files of deploy/ agree with each other and with the settings Waymark accepts: the example
 * environment file loads, systemd waits longer than the shutdown grace, Caddy reaches Waymark on
 * its port, and (with caddy installed) the shipped Caddyfile is valid as it is. The three ways to
 * start the server (npm start, the image, the unit) carry the same memory settings
 * (bench/redirect-flood/README.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { loadConfig } from '../src/config.js';

/** systemd's EnvironmentFile: KEY=value lines, comments and blank lines ignored. */
function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) env[m[1]!] = m[2]!;
  }
  return env;
}

const env = envFile(readFileSync('deploy/waymark.env', 'utf8'));
const unit = readFileSync('deploy/waymark.service', 'utf8');
const caddyfile = readFileSync('deploy/Caddyfile', 'utf8');

test('deploy/waymark.env loads: loopback only, one trusted proxy, the data folder', () => {
  const config = loadConfig(env);
  assert.equal(config.host, '127.0.0.1');
  assert.deepEqual(config.trustProxy, { kind: 'hops', hops: 1 }, 'one proxy in front: the right-most X-Forwarded-For entry, the one Caddy wrote');
  assert.equal(env.TRUST_PROXY, '1');
  assert.match(config.databaseUrl, /^file:\/var\/lib\/waymark\//);
  assert.equal(config.shortLinkProtocol, 'https');
  assert.equal(config.apiKey, undefined, 'no key is shipped');
});

test('deploy/waymark.service: a user of its own, the environment file, the data folder, a stop timeout above the grace', () => {
  const value = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(unit)?.[1];
  assert.equal(value('User'), 'waymark');
  assert.equal(value('EnvironmentFile'), '/etc/waymark/waymark.env');
  assert.equal(value('StateDirectory'), 'waymark');
  assert.equal(value('Restart'), 'on-failure');
  const stopMs = Number(value('TimeoutStopSec')) * 1000;
  const graceMs = loadConfig(env).clickShutdownGraceMs;
  assert.ok(stopMs > graceMs, `TimeoutStopSec ${stopMs} ms must exceed CLICK_SHUTDOWN_GRACE_MS ${graceMs} ms`);
  assert.ok(stopMs > loadConfig({}).clickShutdownGraceMs, 'and the default grace');
  assert.ok(loadConfig(env).databaseUrl.includes(`/var/lib/${value('StateDirectory')}/`), 'the database is in the data folder');
});

test('deploy/Caddyfile asks and proxies to the PORT of waymark.env, on loopback, unless WAYMARK_UPSTREAM says otherwise', () => {
  const port = loadConfig(env).port;
  assert.match(caddyfile, new RegExp(`ask http://\\{\\$WAYMARK_UPSTREAM:127\\.0\\.0\\.1:${port}\\}/tls/allow`));
  assert.match(caddyfile, new RegExp(`reverse_proxy \\{\\$WAYMARK_UPSTREAM:127\\.0\\.0\\.1:${port}\\}`));
});

const caddy = spawnSync('caddy', ['version']).status === 0;
test('deploy/Caddyfile is valid for caddy as shipped', { skip: !caddy && 'caddy is not installed (`apt-get install caddy`; CI installs it)' }, () => {
  const adapted = spawnSync('caddy', ['adapt', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], { encoding: 'utf8' });
  assert.equal(adapted.status, 0, adapted.stderr);
  const json = JSON.parse(adapted.stdout) as { apps: { tls: { automation: { on_demand: { ask: string }; policies: { on_demand: boolean }[] } } } };
  assert.equal(json.apps.tls.automation.on_demand.ask, `http://127.0.0.1:${loadConfig(env).port}/tls/allow`);
  assert.ok(json.apps.tls.automation.policies.every((p) => p.on_demand), 'every certificate on demand');
});

test('compose.yaml runs deploy/Caddyfile against the waymark service on the port its image listens on', { skip: !caddy && 'caddy is not installed (`apt-get install caddy`; CI installs it)' }, () => {
  const compose = readFileSync('compose.yaml', 'utf8');
  assert.match(compose, /- \.\/deploy\/Caddyfile:\/etc\/caddy\/Caddyfile:ro/);
  const upstream = /WAYMARK_UPSTREAM: (\S+)/.exec(compose)?.[1];
  assert.equal(upstream, 'waymark:3000');
  assert.match(readFileSync('Dockerfile', 'utf8'), /PORT=3000/);
  const adapted = spawnSync('caddy', ['adapt', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], { encoding: 'utf8', env: { ...process.env, WAYMARK_UPSTREAM: upstream, ACME_EMAIL: 'ops@example.org' } });
  assert.equal(adapted.status, 0, adapted.stderr);
  const json = JSON.parse(adapted.stdout);
  assert.equal(json.apps.tls.automation.on_demand.ask, 'http://waymark:3000/tls/allow');
  assert.match(adapted.stdout, /"dial":"waymark:3000"/);
  assert.match(adapted.stdout, /"email":"ops@example.org"/);
});

test('npm start, the container image and the systemd unit start the server with the same heap bound; the image and unit fix glibc\'s mmap threshold (the flood memory bound)', () => {
  const flag = (text: string) => /--max-old-space-size=(\d+)/.exec(text)?.[1];
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  const image = readFileSync('Dockerfile', 'utf8').split('\n').find((l) => l.startsWith('CMD '))!;
  const execStart = unit.split('\n').find((l) => l.startsWith('ExecStart='))!;
  assert.equal(flag(scripts.start!), '384');
  assert.equal(flag(image), '384', image);
  assert.equal(flag(execStart), '384', execStart);
  // glibc's fixed mmap threshold, in the image's environment and the unit's.
  assert.match(readFileSync('Dockerfile', 'utf8'), /^\s+MALLOC_MMAP_THRESHOLD_=131072$/m);
  assert.match(unit, /^Environment=MALLOC_MMAP_THRESHOLD_=131072$/m);
});

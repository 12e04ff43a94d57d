/**
 * deploy/Caddyfile in front of the real process (issue 29), with Debian's caddy (2.6): a domain
 * added through the API gets a certificate on its first visit and its short link answers 302 over
 * HTTPS with the visitor's address recorded; a host Waymark does not know gets no certificate;
 * a domain deleted through the API gets none any more; plain HTTP is sent to HTTPS.
 *
 * The test adapts the shipped file, and fails if it no longer has the shape it adapts: Caddy's
 * local authority (`tls internal`, `local_certs`) in place of a public CA, high ports, a data
 * folder of its own. TLS connects to 127.0.0.1 with the name as SNI (no DNS), trusting the local
 * root from Caddy's data folder. The client connects from 127.0.0.2, so the address Waymark
 * records can only have come through Caddy's X-Forwarded-For.
 *
 * Needs `caddy` (`apt-get install caddy`; CI installs it in .ci/run): without it the test is
 * skipped and says so.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort, privateDatabase, startServer } from '../src/test-support/processes.js';

const CADDY = spawnSync('caddy', ['version'], { encoding: 'utf8' });
const SKIP = CADDY.status !== 0 && 'caddy is not installed: `sudo apt-get install -y caddy` (Debian, 2.6) runs this test; CI installs it (.ci/run)';

const API_HOST = 'api.caddy.test';
const SHORT_DOMAIN = 'go.caddy.test';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** One replacement in the shipped Caddyfile; throws when its text is not there (the file changed shape). */
function replaceIn(text: string, from: string | RegExp, to: string, what: string): string {
  const out = text.replace(from, to);
  assert.notEqual(out, text, `deploy/Caddyfile: ${what} (${String(from)}) not found`);
  return out;
}

/** deploy/Caddyfile for a test: local CA, high ports, a data folder of its own, Waymark on `port`. */
function adaptCaddyfile(shipped: string, o: { waymarkPort: number; httpPort: number; httpsPort: number; dataDir: string }): string {
  let text = replaceIn(shipped, /127\.0\.0\.1:3000/g, `127.0.0.1:${o.waymarkPort}`, 'Waymark upstream and ask address');
  assert.equal(text.split(`127.0.0.1:${o.waymarkPort}`).length - 1, 2, 'the ask and the reverse proxy both name Waymark');
  text = replaceIn(text, /^(\s*)tls \{$/m, '$1tls internal {', 'the site\'s tls block');
  text = replaceIn(
    text,
    /^\{$/m,
    ['{', '\tlocal_certs', '\tskip_install_trust', '\tadmin off', `\thttp_port ${o.httpPort}`, `\thttps_port ${o.httpsPort}`, `\tstorage file_system ${o.dataDir}`].join('\n'),
    'the global options block',
  );
  return text;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  cert?: PeerCertificate;
}

/** GET over HTTPS through Caddy: TCP to 127.0.0.1, `host` as SNI and Host, from 127.0.0.2. */
function httpsGet(port: number, host: string, path: string, ca: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path, servername: host, ca, localAddress: '127.0.0.2', agent: false, headers: { host, 'user-agent': CHROME, ...headers } },
      (res) => {
        const cert = (res.socket as import('node:tls').TLSSocket).getPeerCertificate();
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, cert }));
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** A TLS handshake for `servername`: resolves with the certificate, rejects when Caddy refuses. */
function handshake(port: number, servername: string, ca: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, servername, ca, ALPNProtocols: ['http/1.1'] }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert);
    });
    socket.setTimeout(15_000, () => socket.destroy(new Error('timed out')));
    socket.on('error', reject);
  });
}

function httpGet(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch((err: { fatal?: boolean }) => {
      if (err.fatal) throw err;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('Caddy with deploy/Caddyfile: on-demand certificates for Waymark\'s domains only, 302 over HTTPS with the visitor\'s address', { skip: SKIP, timeout: 120_000 }, async (t) => {
  t.diagnostic(CADDY.stdout.trim());
  const dir = mkdtempSync(join(tmpdir(), 'waymark-caddy-'));
  const db = await privateDatabase();
  const key = `wm_${randomBytes(12).toString('hex')}`;
  let caddy: ChildProcess | undefined;
  let caddyLog = '';
  const server = await startServer(db.url, await freePort(), key, {
    BASE_URL: `https://${API_HOST}`,
    SHORT_DOMAIN,
    SHORT_LINK_PROTOCOL: 'https',
    // docs/deploy.md's settings: Caddy on the same machine, one proxy hop.
    TRUST_PROXY: '1',
    VISITOR_IP: 'full',
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> & Record<string, unknown>[] };
  };
  try {
    const caddyStartedAt = Date.now();
    const [httpPort, httpsPort] = [await freePort(), await freePort()];
    const dataDir = join(dir, 'data');
    const config = adaptCaddyfile(readFileSync('deploy/Caddyfile', 'utf8'), { waymarkPort: server.port, httpPort, httpsPort, dataDir });
    writeFileSync(join(dir, 'Caddyfile'), config);
    caddy = spawn('caddy', ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'xdg'), XDG_CONFIG_HOME: join(dir, 'xdg') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    caddy.stdout!.on('data', (d) => (caddyLog += d));
    caddy.stderr!.on('data', (d) => (caddyLog += d));
    const rootFile = join(dataDir, 'pki', 'authorities', 'local', 'root.crt');
    await until('caddy to serve HTTPS with its local authority', async () => {
      if (caddy!.exitCode !== null) throw Object.assign(new Error(`caddy exited:\n${caddyLog}`), { fatal: true });
      return existsSync(rootFile) && caddyLog.includes('serving initial configuration') ? true : undefined;
    });
    const ca = readFileSync(rootFile, 'utf8');

    // A domain added through the API (verified at once: DOMAIN_VERIFICATION=off) and a link on it.
    assert.equal((await api('POST', '/domains', { slug: 'shop.acme.test' })).status, 201);
    const link = await api('POST', '/links', { url: 'https://example.com/landing', domain: 'shop.acme.test', key: 'promo' });
    assert.equal(link.status, 200, JSON.stringify(link.json));

    // The first visit: Caddy asks Waymark, gets a certificate from its local authority, proxies.
    const visit = await httpsGet(httpsPort, 'shop.acme.test', '/promo', ca, { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(visit.status, 302, visit.body);
    assert.match(String(visit.headers.location), /^https:\/\/example\.com\/landing/);
    assert.equal(visit.cert?.subjectaltname, 'DNS:shop.acme.test');
    assert.match(String(visit.cert?.issuer?.CN), /Caddy Local Authority/);

    // The click holds the visitor's address (127.0.0.2, VISITOR_IP=full), passed by Caddy in
    // X-Forwarded-For; the address the visitor claimed is dropped by Caddy, not believed.
    const clicks = await until('the click to be stored', async () => {
      const list = await api('GET', `/events?event=clicks&linkId=${String(link.json.id)}&interval=24h`);
      return list.status === 200 && list.json.length > 0 ? list.json : undefined;
    });
    assert.equal(clicks.length, 1);
    assert.equal((clicks[0] as { click: { ip: string } }).click.ip, '127.0.0.2');

    // The API host and the default short domain get certificates too.
    const ready = await httpsGet(httpsPort, API_HOST, '/ready', ca);
    assert.deepEqual([ready.status, JSON.parse(ready.body)], [200, { status: 'ready' }]);
    assert.equal((await handshake(httpsPort, SHORT_DOMAIN, ca)).subjectaltname, `DNS:${SHORT_DOMAIN}`);

    // A host Waymark does not know: no certificate, the handshake fails.
    await assert.rejects(handshake(httpsPort, 'stranger.example.test', ca), (err: Error) => /alert|EPROTO|ECONNRESET|socket disconnected/i.test(err.message));

    // A domain deleted through the API gets no certificate any more. (Its first handshake comes
    // after the deletion: a certificate Caddy already holds is served until it expires.)
    assert.equal((await api('POST', '/domains', { slug: 'gone.acme.test' })).status, 201);
    const allow = (domain: string) => httpGet(server.port, `/tls/allow?domain=${domain}`).then((r) => r.status);
    assert.equal(await until('gone.acme.test to be allowed', async () => ((await allow('gone.acme.test')) === 200 ? 200 : undefined)), 200);
    assert.equal((await api('DELETE', '/domains/gone.acme.test')).status, 200);
    await until('gone.acme.test to be refused', async () => ((await allow('gone.acme.test')) === 404 ? true : undefined));
    await assert.rejects(handshake(httpsPort, 'gone.acme.test', ca), (err: Error) => /alert|EPROTO|ECONNRESET|socket disconnected/i.test(err.message));

    // Plain HTTP: sent to the same address over HTTPS, method kept.
    const plain = await httpGet(httpPort, '/promo?utm_source=x', { host: 'shop.acme.test' });
    assert.equal(plain.status, 308);
    assert.equal(plain.headers.location, 'https://shop.acme.test/promo?utm_source=x');
    t.diagnostic(`caddy started and every check done in ${Date.now() - caddyStartedAt} ms (the Waymark process's start not included)`);
  } catch (err) {
    t.diagnostic(`caddy's log:\n${caddyLog.slice(-4_000)}`);
    throw err;
  } finally {
    if (caddy && caddy.exitCode === null) {
      caddy.kill('SIGTERM');
      await new Promise((r) => caddy!.once('exit', r));
    }
    server.child.kill('SIGTERM');
    await server.exited;
    await db.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * The warning when certificates go to unverified domains (unverified-warning.ts): the pure
 * decision, then the module on a real database: one warn line at start when HTTPS is served, or
 * at the first `/tls/allow` question, only with DOMAIN_VERIFICATION=off and more than one workspace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { createTlsModule } from './module.js';
import { unverifiedTlsWarning } from './unverified-warning.js';

test('unverifiedTlsWarning: only verification off, more than one workspace, and a sign of a TLS terminator', () => {
  const warning = unverifiedTlsWarning({ verification: 'off', workspaces: 2, tls: 'https-served' });
  assert.match(warning ?? '', /^DOMAIN_VERIFICATION=off with 2 workspaces and HTTPS is served .* set DOMAIN_VERIFICATION=dns/);
  assert.match(unverifiedTlsWarning({ verification: 'off', workspaces: 5, tls: 'asked' }) ?? '', /a TLS terminator asks GET \/tls\/allow/);
  assert.equal(unverifiedTlsWarning({ verification: 'off', workspaces: 1, tls: 'asked' }), null, 'one workspace: the operator owns every domain');
  assert.equal(unverifiedTlsWarning({ verification: 'dns', workspaces: 9, tls: 'asked' }), null, 'verification on');
  assert.equal(unverifiedTlsWarning({ verification: 'off', workspaces: 9, tls: 'none' }), null, 'no sign of a terminator (a laptop run)');
});

/** A TLS module over the test app's database, with `config` changes, collecting its warnings. */
function moduleOf(t: TestApp, config: Partial<TestApp['ctx']['config']>) {
  const warnings: string[] = [];
  const tls = createTlsModule({ ...t.ctx, config: { ...t.ctx.config, ...config } }, { onError: (err) => assert.fail(String(err)), warn: (m) => warnings.push(m) });
  return { tls, warnings };
}

test('at start: one warn line when HTTPS is served with verification off and two workspaces; none with one, or with dns', async (c) => {
  const t = await createTestApp();
  c.after(() => t.close());
  const alone = moduleOf(t, { domainVerification: 'off', shortLinkProtocol: 'https' });
  await alone.tls.lifecycle.start!();
  alone.tls.lifecycle.close!();
  assert.deepEqual(alone.warnings, [], 'one workspace');

  await t.ctx.workspaces.createWorkspace({ name: 'Second tenant', plan: 'free' });
  const off = moduleOf(t, { domainVerification: 'off', shortLinkProtocol: 'https' });
  await off.tls.lifecycle.start!();
  await off.tls.warnIfUnverified('asked');
  off.tls.lifecycle.close!();
  assert.equal(off.warnings.length, 1, 'once per process');
  assert.match(off.warnings[0]!, /^DOMAIN_VERIFICATION=off with 2 workspaces and HTTPS is served/);

  const dns = moduleOf(t, { domainVerification: 'dns', shortLinkProtocol: 'https' });
  await dns.tls.lifecycle.start!();
  await dns.tls.warnIfUnverified('asked');
  dns.tls.lifecycle.close!();
  assert.deepEqual(dns.warnings, []);
});

test('without HTTPS in the settings: nothing at start, one warn line at the first /tls/allow question', async (c) => {
  const t = await createTestApp();
  c.after(() => t.close());
  await t.ctx.workspaces.createWorkspace({ name: 'Second tenant', plan: 'free' });
  const { tls, warnings } = moduleOf(t, { domainVerification: 'off', shortLinkProtocol: 'http', baseUrl: 'http://localhost:3000' });
  await tls.lifecycle.start!();
  assert.deepEqual(warnings, [], 'a laptop run is not warned');
  const app = Fastify({ logger: false });
  c.after(() => app.close());
  await app.register(tls.routes);
  for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: '/tls/allow?domain=shop.example.com' });
  // The count behind the warning runs beside the answer: wait for it (bounded), then for any second line.
  for (let waited = 0; warnings.length === 0 && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  await tls.warnIfUnverified('asked');
  tls.lifecycle.close!();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /a TLS terminator asks GET \/tls\/allow/);
});

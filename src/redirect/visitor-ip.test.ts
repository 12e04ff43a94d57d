/**
 * VISITOR_IP end to end: what the events table and `GET /events` hold of the visitor's address
 * (anonymized by default, `none`), that a lead copies its click's stored form, that repeat visits
 * are still recognised with the full address kept in memory only, and the click-id cookie's
 * configurable lifetime.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit, insertLink } from './testing.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

async function start(env: Record<string, string> = {}) {
  const t = await createTestApp({ env: { TRUST_PROXY: 'true', ...env } });
  const base = await t.listen();
  const visit = (path: string, ip: string) => hit(base, path, { host: 'go.test', headers: { 'user-agent': CHROME, 'x-forwarded-for': ip } });
  return { t, visit };
}

async function storedIps(t: TestApp, linkId: string): Promise<string[]> {
  await t.modules.redirect.flushClicks();
  const rows = await t.database.db.selectFrom('events').select(['ip', 'kind']).where('link_id', '=', linkId).orderBy('timestamp').execute();
  return rows.map((r) => `${r.kind}:${r.ip}`);
}

async function listedIps(t: TestApp, linkId: string, event: string): Promise<string[]> {
  const res = await t.inject({ method: 'GET', url: `/events?event=${event}&linkId=${linkId}&interval=all` });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { ip: string; click: { ip: string } }[]).map((r) => {
    assert.equal(r.click.ip, r.ip, 'nested and flat agree');
    return r.ip;
  });
}

test('by default clicks store the /24 or /48, repeat visits are still one click, and a lead copies the stored form', async () => {
  const { t, visit } = await start();
  try {
    const l = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'anon', url: 'https://shop.example/', track_conversion: 1 });
    const first = await visit('/anon', '203.0.113.5');
    const repeat = await visit('/anon', '203.0.113.5');
    assert.equal(repeat.location, first.location, 'the repeat visit reuses the first click id');
    await visit('/anon', '203.0.113.77'); // same /24, another visitor: a click of its own
    await visit('/anon', '2001:db8:85a3:8d3:1319:8a2e:370:7348');
    assert.deepEqual(await storedIps(t, l.id as string), ['click:203.0.113.0', 'click:203.0.113.0', 'click:2001:db8:85a3::']);
    // Sorted: visits a millisecond apart can share a timestamp, and ties are listed by random id.
    assert.deepEqual((await listedIps(t, l.id as string, 'clicks')).sort(), ['2001:db8:85a3::', '203.0.113.0', '203.0.113.0']);

    const clickId = new URL(first.location!).searchParams.get('waymark_id')!;
    const lead = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: 'Sign up', customerExternalId: 'anon-1', mode: 'wait' } });
    assert.equal(lead.statusCode, 200, lead.body);
    assert.deepEqual(await listedIps(t, l.id as string, 'leads'), ['203.0.113.0']);
  } finally {
    await t.close();
  }
});

test('VISITOR_IP=none stores the empty string, which /events returns as the ip', async () => {
  const { t, visit } = await start({ VISITOR_IP: 'none' });
  try {
    const l = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'none', url: 'https://shop.example/' });
    await visit('/none', '198.51.100.9');
    await visit('/none', '198.51.100.9');
    await visit('/none', '198.51.100.10');
    assert.deepEqual(await storedIps(t, l.id as string), ['click:', 'click:'], 'dedup still tells the two visitors apart');
    assert.deepEqual(await listedIps(t, l.id as string, 'clicks'), ['', '']);
  } finally {
    await t.close();
  }
});

test('CLICK_ID_COOKIE_DAYS sets the click-id cookie lifetime', async () => {
  const { t, visit } = await start({ CLICK_ID_COOKIE_DAYS: '30' });
  try {
    await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'cookie', url: 'https://shop.example/', track_conversion: 1 });
    const res = await visit('/cookie', '192.0.2.1');
    const cookie = res.cookies.find((c) => c.startsWith('waymark_id='))!;
    assert.match(cookie, /; Max-Age=2592000; SameSite=Lax/);
  } finally {
    await t.close();
  }
});

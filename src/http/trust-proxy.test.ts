/**
 * TRUST_PROXY end to end (issue 26, class 6): behind one trusted proxy (`TRUST_PROXY=1`) the
 * client's address is the one the proxy appended, so entries a client writes in front of it change
 * nothing: not the failed-auth or QR limits, not repeat-visit detection, not the stored visitor
 * address or its country. With `TRUST_PROXY=false` the header is ignored altogether.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit, insertLink } from '../redirect/testing.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
/** In the bundled location data: a US address and a German one. */
const US = '8.8.8.8';
const DE = '2a00:1450:4001:80b::200e';
let n = 0;
/** A different made-up address each call. */
const spoof = () => `10.${++n % 250}.${(n * 7) % 250}.${(n * 13) % 250}`;

describe('TRUST_PROXY=1: one proxy, the right-most address', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: '1', VISITOR_IP: 'full' }, config: { failedAuthRateLimitPerMinute: 3, qrRateLimitPerMinute: 3 } });
    base = await t.listen();
  });
  after(() => t.close());

  test('failed authentications and QR codes are counted for the proxy-added address, whatever is in front of it', async () => {
    const url = `/workspaces/${t.workspaceId}`;
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer wm_wrong', 'x-forwarded-for': `${spoof()}, ${spoof()}, 198.51.100.1` } })).statusCode);
    assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    assert.equal((await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer wm_wrong', 'x-forwarded-for': '198.51.100.1, 198.51.100.2' } })).statusCode, 401, 'the right-most entry decides: 198.51.100.2 is new');

    const qr = `/qr?url=${encodeURIComponent('https://go.example.com/abc')}&format=svg`;
    const qrs = [];
    for (let i = 0; i < 4; i++) qrs.push((await t.app.inject({ method: 'GET', url: qr, headers: { 'x-forwarded-for': `${spoof()}, 198.51.100.3` } })).statusCode);
    assert.deepEqual(qrs, [200, 200, 200, 429]);
  });

  test('a visitor who writes X-Forwarded-For gets the address and country the proxy saw, and a repeat visit stays one click', async () => {
    const link = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'tp', url: 'https://example.com/tp', track_conversion: 1 });
    const visit = (forwarded: string) => hit(base, '/tp', { host: 'go.test', headers: { 'user-agent': CHROME, 'x-forwarded-for': forwarded } });
    const first = await visit(`${US}, ${DE}`);
    const second = await visit(`${spoof()}, ${DE}`);
    assert.equal(first.status, 302);
    assert.equal(second.location, first.location, 'the same visitor: the first click id again');
    // Two header lines (a proxy that adds its own line rather than appending) read as one list.
    const third = await new Promise<string | undefined>((resolve, reject) => {
      const headers = ['host', 'go.test', 'user-agent', CHROME, 'x-forwarded-for', US, 'x-forwarded-for', DE];
      const req = request(`${base}/tp`, { headers: headers as unknown as Record<string, string> }, (res) => {
        res.resume();
        resolve(res.headers.location);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(third, first.location, 'the proxy-added line decides');
    await t.modules.redirect.flushClicks();
    const rows = await t.database.db.selectFrom('events').select(['ip', 'country']).where('link_id', '=', link.id as string).execute();
    assert.deepEqual(rows, [{ ip: DE, country: 'DE' }]);
  });
});

test('TRUST_PROXY=false: the header is ignored, the peer is the client', async () => {
  const t = await createTestApp({ env: { TRUST_PROXY: 'false', VISITOR_IP: 'full' }, config: { failedAuthRateLimitPerMinute: 2 } });
  try {
    const base = await t.listen();
    const url = `/workspaces/${t.workspaceId}`;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.app.inject({ method: 'GET', url, headers: { authorization: 'Bearer wm_wrong', 'x-forwarded-for': spoof() } })).statusCode);
    assert.deepEqual(statuses, [401, 401, 429], 'every request comes from the same peer');
    const link = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'np', url: 'https://example.com/np' });
    assert.equal((await hit(base, '/np', { host: 'go.test', headers: { 'user-agent': CHROME, 'x-forwarded-for': DE } })).status, 302);
    await t.modules.redirect.flushClicks();
    const rows = await t.database.db.selectFrom('events').select('ip').where('link_id', '=', link.id as string).execute();
    assert.deepEqual(rows, [{ ip: '127.0.0.1' }]);
  } finally {
    await t.close();
  }
});

/**
 * `GET /metrics` (issue 29): off by default; with METRICS_TOKEN, only to that bearer token; on
 * METRICS_PORT, a server of its own. Scraped after real redirects, API calls, a lead and a webhook
 * delivery, with the values asserted.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit, insertLink } from '../redirect/testing.js';
import { startReceiver, type Receiver } from '../webhooks/testing.js';
import { bearerMatches } from './module.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const HOUR = 3_600_000;

/** The samples of a Prometheus text page, by `name{labels}` as printed. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

let t: TestApp;
let base: string;
let r: Receiver;
let visitor = 0;
before(async () => {
  t = await createTestApp({
    env: { METRICS_TOKEN: TOKEN, TRUST_PROXY: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' },
    config: { failedAuthRateLimitPerMinute: 3 },
  });
  base = await t.listen();
  r = await startReceiver();
});
after(async () => {
  await t.close();
  await r.close();
});

async function scrape(): Promise<Map<string, number>> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  return samples(res.body);
}
const visit = (path: string, ua = CHROME) => hit(base, path, { host: 'go.test', headers: { 'user-agent': ua, 'x-forwarded-for': `198.51.100.${++visitor}` } });

test('bearerMatches: the exact token only, any case of "Bearer"', () => {
  assert.equal(bearerMatches(`Bearer ${TOKEN}`, TOKEN), true);
  assert.equal(bearerMatches(`bearer ${TOKEN}`, TOKEN), true);
  assert.equal(bearerMatches(`Bearer ${TOKEN}x`, TOKEN), false);
  assert.equal(bearerMatches(`Bearer ${TOKEN.slice(0, -1)}`, TOKEN), false);
  assert.equal(bearerMatches(TOKEN, TOKEN), false);
  assert.equal(bearerMatches(undefined, TOKEN), false);
});

test('off without METRICS_TOKEN or METRICS_PORT: 404, and no metrics object', async () => {
  const plain = await createTestApp();
  try {
    assert.equal(plain.modules.metrics, undefined);
    const res = await plain.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 404);
  } finally {
    await plain.close();
  }
});

test('the token is required: none, a wrong one, an API key → 401 with the error body', async () => {
  for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Bearer ${t.key}`]) {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { ...(authorization ? { authorization } : {}), 'x-forwarded-for': '192.0.2.50' } });
    assert.equal(res.statusCode, 401, String(authorization));
    assert.equal(res.json().error.code, 'unauthorized');
    assert.doesNotMatch(res.body, /waymark_/);
  }
});

test('redirects by outcome, clicks, the writer; API requests by route pattern and status; rate-limit refusals; appends', async () => {
  const before = await scrape();
  await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'm-live', url: 'https://example.com/a', track_conversion: 1 });
  await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'm-old', url: 'https://example.com/b', expires_at: Date.now() - HOUR });
  await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'm-secret', url: 'https://example.com/c', password: 'hunter2' });

  const first = await visit('/m-live');
  assert.equal(first.status, 302);
  for (let i = 0; i < 2; i++) assert.equal((await visit('/m-live')).status, 302);
  assert.equal((await visit('/m-live', 'Twitterbot/1.0')).status, 302);
  assert.equal((await visit('/m-missing')).status, 404);
  assert.equal((await visit('/m-old')).status, 410);
  assert.equal((await visit('/m-secret')).status, 200);
  await t.modules.redirect.flushClicks();

  // API: two reads of a list, one miss on a pattern with a parameter, one unknown path.
  for (let i = 0; i < 2; i++) assert.equal((await t.inject({ method: 'GET', url: '/links' })).statusCode, 200);
  assert.equal((await t.inject({ method: 'GET', url: '/links/link_nope123' })).statusCode, 404);
  assert.equal((await t.inject({ method: 'GET', url: '/no/such/route?x=1' })).statusCode, 404);
  // Failed authentication from one address: 3 answered 401, the 4th 429.
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await t.app.inject({ method: 'GET', url: '/links', headers: { authorization: 'Bearer wm_unknown', 'x-forwarded-for': '203.0.113.77' } })).statusCode);
  assert.deepEqual(statuses, [401, 401, 401, 429]);

  // A lead on the first click: one append to the event store.
  const clickId = /waymark_id=([^;]+)/.exec(String(first.headers['set-cookie']))?.[1];
  assert.ok(clickId, 'the click id cookie');
  const lead = await t.inject({ method: 'POST', url: '/track/lead', payload: { clickId, eventName: 'Sign up', customerExternalId: 'metrics-1', mode: 'wait' } });
  assert.equal(lead.statusCode, 200, lead.body);

  const after = await scrape();
  const added = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
  assert.equal(added('waymark_redirects_total{outcome="redirect"}'), 3);
  assert.equal(added('waymark_redirects_total{outcome="bot"}'), 1);
  assert.equal(added('waymark_redirects_total{outcome="not_found"}'), 1);
  assert.equal(added('waymark_redirects_total{outcome="expired"}'), 1);
  assert.equal(added('waymark_redirects_total{outcome="password"}'), 1);
  assert.equal(added('waymark_redirects_total{outcome="untracked"}'), 0);
  assert.equal(added('waymark_clicks_recorded_total'), 3);
  assert.equal(added('waymark_clicks_committed_total'), 3);
  assert.ok(added('waymark_click_writer_batches_total') >= 1);
  assert.equal(after.get('waymark_clicks_buffered'), 0);
  assert.equal(after.get('waymark_click_writer_lag_seconds'), 0);
  assert.equal(after.get('waymark_clicks_dropped_total'), 0);
  assert.equal(after.get('waymark_clicks_spilled_total'), 0);

  assert.equal(added('waymark_http_requests_total{method="GET",route="/links",status="200"}'), 2);
  assert.equal(added('waymark_http_requests_total{method="GET",route="/links/:linkId",status="404"}'), 1);
  assert.equal(added('waymark_http_requests_total{method="GET",route="unmatched",status="404"}'), 1);
  assert.equal(added('waymark_http_requests_total{method="GET",route="/links",status="401"}'), 3);
  assert.equal(added('waymark_http_requests_total{method="GET",route="/links",status="429"}'), 1);
  assert.equal(added('waymark_rate_limit_refusals_total{route="/links"}'), 1);
  assert.equal(added('waymark_http_request_duration_seconds_count{method="GET",route="/links"}'), 6);
  assert.equal(added('waymark_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/links"}'), 6);
  for (const name of after.keys()) assert.doesNotMatch(name, /link_nope123|no\/such|x=1/, 'no raw URL in a label');

  assert.equal(added('waymark_event_store_append_seconds_count{kind="events"}'), 1);
  assert.equal(added('waymark_http_requests_total{method="POST",route="/track/lead",status="200"}'), 1);

  // Process and event-loop metrics (prom-client's defaults).
  assert.ok((after.get('process_cpu_seconds_total') ?? 0) > 0);
  assert.ok(after.has('nodejs_eventloop_lag_p99_seconds'));
  assert.ok(after.has('waymark_retention_deleted_total{kind="events"}'));
});

test('webhook deliveries by state and the outbox backlog, read from the database', async () => {
  const hook = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'm', url: r.url, triggers: ['link.created'] } });
  assert.equal(hook.statusCode, 200, hook.body);
  r.answer = () => 204;
  assert.equal((await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/hooked' } })).statusCode, 200);
  await r.until((got) => got.length >= 1, 'the link.created delivery');
  // The delivery is recorded just after the receiver answered.
  const deadline = Date.now() + 30_000;
  let now = await scrape();
  while (now.get('waymark_webhook_deliveries{state="delivered"}') !== 1 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    now = await scrape();
  }
  assert.equal(now.get('waymark_webhook_deliveries{state="delivered"}'), 1);
  assert.equal(now.get('waymark_webhook_deliveries{state="pending"}'), 0);
  assert.equal(now.get('waymark_webhook_deliveries{state="failed"}'), 0);
  assert.equal(now.get('waymark_webhook_oldest_pending_seconds'), 0);
  assert.ok(now.has('waymark_outbox_backlog'));

  // A receiver that fails: the next delivery waits for its retry (pending, with an age).
  r.answer = () => 500;
  assert.equal((await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/hooked-2' } })).statusCode, 200);
  await r.until((got) => got.length >= 2, 'the failing delivery');
  while (now.get('waymark_webhook_deliveries{state="pending"}') !== 1 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    now = await scrape();
  }
  assert.equal(now.get('waymark_webhook_deliveries{state="pending"}'), 1);
  assert.ok((now.get('waymark_webhook_oldest_pending_seconds') ?? 0) > 0);
});

test('METRICS_PORT: a server of its own with /metrics only; the token asked there when set', async () => {
  const own = await createTestApp({ env: { METRICS_PORT: '0', HOST: '127.0.0.1' } });
  try {
    const port = own.modules.metrics!.port();
    assert.ok(port);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^# HELP /m);
    assert.equal((await fetch(`http://127.0.0.1:${port}/links`)).status, 404);
    // Not on the main port without a token.
    assert.equal((await own.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
  } finally {
    await own.close();
  }
  const both = await createTestApp({ env: { METRICS_PORT: '0', HOST: '127.0.0.1', METRICS_TOKEN: TOKEN } });
  try {
    const url = `http://127.0.0.1:${both.modules.metrics!.port()}/metrics`;
    assert.equal((await fetch(url)).status, 401);
    assert.equal((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
  } finally {
    await both.close();
  }
});

/**
 * Traces end to end, against an OTLP/HTTP receiver in this process (testing.ts): the app built
 * with tracing on, the event log on its own thread and the webhook dispatcher on its own, each
 * sending its spans. Checks what arrives: an API request's server span continuing the caller's
 * `traceparent`, its attributes and status; a webhook delivery's span whose `traceparent` the
 * receiver was sent; a click batch's span on the log thread with the fold as its child; an
 * export's span under its request's; an import's span with its counts. With tracing off nothing
 * is loaded and nothing is sent.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { hit } from '../redirect/testing.js';
import { startReceiver, type Receiver } from '../webhooks/testing.js';
import { startOtlpReceiver, type OtlpReceiver } from './testing.js';
import { NO_TRACES, startTraces } from './traces.js';
import { surfaceOf } from './requests.js';

let t: TestApp;
let base: string;
let otlp: OtlpReceiver;
let hooks: Receiver;
before(async () => {
  otlp = await startOtlpReceiver();
  hooks = await startReceiver();
  t = await createTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '20' },
    config: { tracing: otlp.settings },
    eventLogThread: true,
  });
  base = await t.listen();
});
after(async () => {
  await t.close();
  await hooks.close();
  await otlp.close();
});

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

test('an API request is a server span continuing the caller\'s traceparent, with its route, status and workspace', async () => {
  const res = await t.inject({ method: 'POST', url: '/links', headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }, payload: { url: 'https://example.com/traced', key: 'traced' } });
  assert.equal(res.statusCode, 200, res.body);
  const span = await otlp.until((s) => s.name === 'POST /links' && s.traceId === CALLER_TRACE, 'the POST /links span');
  assert.equal(span.parentSpanId, CALLER_SPAN);
  assert.equal(span.kind, 2, 'SERVER');
  assert.equal(span.attributes['http.request.method'], 'POST');
  assert.equal(span.attributes['http.route'], '/links');
  assert.equal(span.attributes['http.response.status_code'], 200);
  assert.equal(span.attributes['waymark.workspace_id'], t.workspaceId);
  assert.equal(span.attributes['waymark.surface'], 'api');
  assert.equal(span.status, 0);
  assert.equal(span.resource['service.name'], 'waymark-test');
  assert.equal(span.resource['waymark.thread'], 'main');
  assert.ok(span.endMs >= span.startMs);

  // A request without one starts a trace; an unknown route is named as such, a refusal is no error.
  await t.inject({ method: 'GET', url: '/links/link_missing' });
  const missing = await otlp.until((s) => s.name === 'GET /links/:linkId', 'the GET /links/:linkId span');
  assert.equal(missing.parentSpanId, '');
  assert.equal(missing.attributes['http.response.status_code'], 404);
  assert.equal(missing.status, 0);
});

test('a webhook delivery is a client span on the dispatcher\'s thread, and the receiver gets its traceparent', async () => {
  const created = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'traced', url: hooks.url, triggers: ['link.created'] } });
  assert.equal(created.statusCode, 200, created.body);
  const hook = created.json() as { id: string };
  await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/hooked', key: 'traced-hook' } });
  await hooks.until((got) => got.length >= 1, 'the delivery');
  const header = hooks.got[0]!.headers.traceparent;
  const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header ?? '');
  assert.ok(m, `traceparent sent: ${header}`);
  const span = await otlp.until((s) => s.spanId === m[2], 'the delivery span');
  assert.equal(span.name, 'webhook.deliver');
  assert.equal(span.traceId, m[1]);
  assert.equal(span.kind, 3, 'CLIENT');
  assert.equal(span.resource['waymark.thread'], 'webhook-dispatch');
  assert.equal(span.attributes['waymark.webhook.id'], hook.id);
  assert.equal(span.attributes['waymark.workspace_id'], t.workspaceId);
  assert.equal(span.attributes['http.response.status_code'], 204);
  assert.equal(span.attributes['waymark.webhook.attempt'], 1);
});

test('a click batch is a span of the log thread, its fold a child; the redirect itself has none', async () => {
  const link = (await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/clicked', key: 'traced-click' } })).json() as { id: string; domain: string };
  const spansBefore = otlp.spans.length;
  for (let i = 0; i < 3; i++) assert.equal((await hit(base, '/traced-click', { host: link.domain })).status, 302);
  await t.modules.redirect.flushClicks();
  const batch = await otlp.until((s) => s.name === 'events.append_clicks' && s.attributes['waymark.batch.clicks'] !== undefined, 'a click batch span');
  assert.equal(batch.resource['waymark.thread'], 'event-log');
  assert.equal(batch.attributes['waymark.event_store'], 'sql');
  assert.equal(batch.attributes['waymark.batch.stored'], true);
  assert.match(String(batch.attributes['waymark.batch.id']), /.+/);
  const fold = await otlp.until((s) => s.name === 'events.fold' && s.parentSpanId === batch.spanId, 'the fold under the batch');
  assert.equal(fold.traceId, batch.traceId);
  assert.equal(fold.attributes['waymark.fold.mode'], 'inline');
  assert.equal(fold.attributes['waymark.fold.clicks'], batch.attributes['waymark.batch.clicks']);
  assert.equal(fold.attributes['waymark.fold.listeners'], 'counters,outbox,webhooks');
  // The batches' spans hold the clicks the link counts (one batch or more), and no span names a redirect.
  const counted = ((await t.inject({ method: 'GET', url: `/links/${link.id}` })).json() as { clicks: number }).clicks;
  assert.ok(counted >= 1);
  const inSpans = () => otlp.spans.filter((s) => s.name === 'events.append_clicks').reduce((n, s) => n + Number(s.attributes['waymark.batch.clicks']), 0);
  await otlp.until(() => inSpans() === counted, `batch spans holding ${counted} clicks`);
  assert.ok(!otlp.spans.slice(spansBefore).some((s) => s.attributes['url.path'] === '/traced-click'), 'no span per redirect');
});

test('with DuckDB the fold runs apart from the batches: its span links to the batch spans it counted', async (t) => {
  const duck = await createTestApp({ config: { eventsUrl: 'duckdb::memory:', tracing: otlp.settings, clickFoldIntervalMs: 50 } });
  t.after(() => duck.close());
  const duckBase = await duck.listen();
  const link = (await duck.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/duck', key: 'traced-duck' } })).json() as { domain: string };
  assert.equal((await hit(duckBase, '/traced-duck', { host: link.domain })).status, 302);
  await duck.modules.redirect.flushClicks();
  const batch = await otlp.until((s) => s.name === 'events.append_clicks' && s.attributes['waymark.event_store'] === 'duckdb', 'a DuckDB batch span');
  const fold = await otlp.until((s) => s.name === 'events.fold' && s.links.some((l) => l.spanId === batch.spanId), 'a fold linked to that batch');
  assert.equal(fold.attributes['waymark.fold.mode'], 'watermark');
  assert.equal(fold.parentSpanId, '', 'a trace of its own, linked rather than parented');
  assert.ok(Number(fold.attributes['waymark.fold.batches']) >= 1);
  assert.ok(Number(fold.attributes['waymark.fold.clicks']) >= 1);
});

test('an export streams in a span under its request\'s; an import is a span with its counts', async () => {
  const res = await t.inject({ method: 'GET', url: '/links/export' });
  assert.equal(res.statusCode, 200, res.body);
  const request = await otlp.until((s) => s.name === 'GET /links/export', 'the export request');
  const stream = await otlp.until((s) => s.name === 'export.stream', 'the export span');
  assert.equal(stream.parentSpanId, request.spanId);
  assert.equal(stream.attributes['waymark.export.kind'], 'links');
  assert.equal(stream.attributes['waymark.export.completed'], true);

  const imported = await t.inject({ method: 'POST', url: '/links/import?dryRun=true', headers: { 'content-type': 'text/csv' }, payload: 'url,key\nhttps://example.com/i1,traced-i1\nnot a url,traced-i2\n' });
  assert.equal(imported.statusCode, 200, imported.body);
  const run = await otlp.until((s) => s.name === 'import.run', 'the import span');
  assert.equal(run.attributes['waymark.workspace_id'], t.workspaceId);
  assert.equal(run.attributes['waymark.import.dry_run'], true);
  assert.equal(run.attributes['waymark.import.rows'], 2);
  assert.equal(run.attributes['waymark.import.rejected'], 1);
});

test('a collector that is down does not hold the shutdown: close gives up on the last spans', async () => {
  const down = await startOtlpReceiver();
  await down.close();
  const traces = await startTraces({ ...down.settings, exportDelayMs: 10 }, 'main');
  for (let i = 0; i < 5; i++) traces.start(`unsent ${i}`).end();
  await new Promise((r) => setTimeout(r, 50));
  const started = Date.now();
  await traces.close();
  // The exporter's own retries take 8 s and more; the close waits CLOSE_WAIT_MS (1.5 s) at most.
  assert.ok(Date.now() - started < 6000, `closed in ${Date.now() - started} ms`);
});

test('off: no settings, no SDK, spans that do nothing', async () => {
  const traces = await startTraces(undefined, 'main');
  assert.equal(traces, NO_TRACES);
  const span = traces.start('anything', { attributes: { a: 1 } });
  span.set({ b: 2 });
  span.end();
  assert.equal(span.traceparent, undefined);
});

test('dashboard pages and the API are told apart', () => {
  assert.equal(surfaceOf('/dashboard/w/acme/links'), 'dashboard');
  assert.equal(surfaceOf('/setup'), 'dashboard');
  assert.equal(surfaceOf('/stats/go.test/abc'), 'dashboard');
  assert.equal(surfaceOf('/links'), 'api');
  assert.equal(surfaceOf('/dashboards'), 'api');
});

/**
 * The builder's "Fetch from destination" (`POST …/links/preview-fetch`): fills the preview fields
 * from a local page's og tags, escaped; refuses a private address under the default rule (the
 * webhooks' WEBHOOK_ALLOW_PRIVATE); owners and members only; CSRF checked like every POST; a page
 * of deeply nested elements answers 422 "Could not read the page"; fetches are limited per user
 * and per workspace (429), and a client asking for JSON gets the spec's error body.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { HostileNames, inspectHtml } from '../test-support/hostile-html.js';
import { addUser, logIn, slugOf } from './testing.js';

const h = new HostileNames();
const HOSTILE = { title: h.value('fetched og:title'), description: h.value('fetched og:description'), image: h.value('fetched og:image') };
const attr = (v: string) => v.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

let site: http.Server;
let origin: string;
let hits = 0;
before(async () => {
  site = http.createServer((req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    if (req.url === '/nested') {
      res.end(`<head><meta property="og:title" content="Deep"></head><body>${'<div>'.repeat(100_000)}</body>`);
    } else if (req.url === '/nested-deep') {
      // Few enough elements to be parsed, nested past the depth a page may have.
      res.end(`<head><meta property="og:title" content="Deep"></head><body>${'<span>'.repeat(5_000)}</body>`);
    } else if (req.url === '/hostile') {
      res.end(`<head><meta property="og:title" content="${attr(HOSTILE.title)}"><meta property="og:description" content="${attr(HOSTILE.description)}"><meta property="og:image" content="/i/${attr(HOSTILE.image)}"></head>`);
    } else {
      res.end('<head><title>Fallback title</title><meta property="og:title" content="Spring sale"><meta name="description" content="Everything 20 % off"><meta property="og:image" content="https://cdn.example.com/spring.png"></head>');
    }
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
after(async () => {
  site.closeAllConnections();
  await new Promise((r) => site.close(r));
});

/** The value of the input `name` in a fragment. */
const valueOf = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

test('owners and members fill the preview from the page; viewers and requests without the CSRF token are refused', async (c) => {
  const t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  c.after(() => t.close());
  const url = `/dashboard/w/${await slugOf(t)}/links/preview-fetch`;
  const member = await logIn(t, await addUser(t, 'member'));
  await member.get(`/dashboard/w/${await slugOf(t)}/links/new`);
  const res = await member.post(url, { url: `${origin}/spring`, title: '', description: 'typed', image: '' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.body, /^<fieldset id="preview-fields">/, 'the fields alone, for htmx to swap in');
  assert.equal(valueOf(res.body, 'title'), 'Spring sale');
  assert.match(res.body, /<textarea name="description"[^>]*>Everything 20 % off<\/textarea>/);
  assert.equal(valueOf(res.body, 'image'), 'https://cdn.example.com/spring.png');
  assert.match(res.body, /name="proxy" value="on" checked/, 'Custom link preview is ticked');
  assert.match(res.body, new RegExp(`Filled from ${origin}/spring\\.`));

  const viewer = await logIn(t, await addUser(t, 'viewer'));
  await viewer.get(`/dashboard/w/${await slugOf(t)}/links`);
  const before = hits;
  assert.equal((await viewer.post(url, { url: `${origin}/spring` })).statusCode, 403);
  assert.equal((await member.post(url, { url: `${origin}/spring`, _csrf: null })).statusCode, 403);
  assert.equal(hits, before, 'neither reached the destination');

  const noUrl = await member.post(url, { url: 'javascript:alert(1)', title: 'kept' });
  assert.equal(noUrl.statusCode, 422);
  assert.match(noUrl.body, /Type the destination URL first/);
  assert.equal(valueOf(noUrl.body, 'title'), 'kept');
});

test('values read from the page are escaped like any other', async (c) => {
  const t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  c.after(() => t.close());
  const owner = await logIn(t, await addUser(t, 'owner'));
  await owner.get(`/dashboard/w/${await slugOf(t)}/links/new`);
  const res = await owner.post(`/dashboard/w/${await slugOf(t)}/links/preview-fetch`, { url: `${origin}/hostile` });
  assert.equal(res.statusCode, 200, res.body);
  const report = inspectHtml(res.body);
  assert.deepEqual(report.problems, []);
  for (const field of ['title', 'description'] as const) {
    const n = Number(/x-hostile-(\d+)/.exec(HOSTILE[field])![1]);
    assert.ok(report.shown.has(n), `the fetched ${field} is shown (escaped)`);
  }
  // The image is a URL: resolved and percent-encoded, no quote or < left at all.
  const image = valueOf(res.body, 'image') ?? '';
  assert.match(image, /^http:\/\/127\.0\.0\.1:\d+\/i\/%22'%3E%3Cx-hostile-\d+%3E$/);
});

test('a private address is refused under the default rule, and nothing is fetched', async (c) => {
  const t = await createTestApp();
  c.after(() => t.close());
  const owner = await logIn(t, await addUser(t, 'owner'));
  await owner.get(`/dashboard/w/${await slugOf(t)}/links/new`);
  const before = hits;
  const res = await owner.post(`/dashboard/w/${await slugOf(t)}/links/preview-fetch`, { url: `${origin}/spring`, title: 'mine' });
  assert.equal(res.statusCode, 422);
  assert.match(res.body, /private or reserved network/);
  assert.equal(valueOf(res.body, 'title'), 'mine', 'the typed fields are kept');
  assert.equal(hits, before);
});

const envelope = (body: string) => JSON.parse(body) as { error: { code: string; message: string; doc_url: string } };
const JSON_ACCEPT = { accept: 'application/json' };

test('a page of deeply nested elements answers 422 "Could not read the page", at the field or as the error body', async (c) => {
  const t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  c.after(() => t.close());
  const owner = await logIn(t, await addUser(t, 'owner'));
  const slug = await slugOf(t);
  await owner.get(`/dashboard/w/${slug}/links/new`);
  const url = `/dashboard/w/${slug}/links/preview-fetch`;
  for (const path of ['/nested', '/nested-deep']) {
    const res = await owner.post(url, { url: `${origin}${path}`, title: 'typed' });
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.body, /^<fieldset id="preview-fields">/);
    assert.match(res.body, /<span class="error" role="status" id="fetch-status">Could not read the page: it has (too many elements|nested too deeply)/);
    assert.equal(valueOf(res.body, 'title'), 'typed', 'the typed fields are kept');
    const api = await owner.post(url, { url: `${origin}${path}` }, JSON_ACCEPT);
    assert.equal(api.statusCode, 422);
    assert.match(String(api.headers['content-type']), /application\/json/);
    const body = envelope(api.body);
    assert.equal(body.error.code, 'unprocessable_entity');
    assert.match(body.error.message, /^Could not read the page/);
    assert.match(body.error.doc_url, /\/api-reference\/errors#unprocessable-entity$/);
  }
  // The server is still well and reads an ordinary page (as JSON when asked).
  const ok = await owner.post(url, { url: `${origin}/spring` }, JSON_ACCEPT);
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(JSON.parse(ok.body), { url: `${origin}/spring`, title: 'Spring sale', description: 'Everything 20 % off', image: 'https://cdn.example.com/spring.png', truncated: false });
});

test('fetches are limited per user and per workspace: the one past the limit answers 429 and reaches nothing', async (c) => {
  const t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', PREVIEW_FETCH_RATE_LIMIT_PER_USER: '3', PREVIEW_FETCH_RATE_LIMIT_PER_WORKSPACE: '5' } });
  c.after(() => t.close());
  const slug = await slugOf(t);
  const url = `/dashboard/w/${slug}/links/preview-fetch`;
  const first = await logIn(t, await addUser(t, 'owner'));
  const second = await logIn(t, await addUser(t, 'member'));
  await first.get(`/dashboard/w/${slug}/links/new`);
  await second.get(`/dashboard/w/${slug}/links/new`);
  for (let i = 0; i < 3; i++) assert.equal((await first.post(url, { url: `${origin}/spring` })).statusCode, 200, `fetch ${i + 1} of 3`);
  const before = hits;
  const over = await first.post(url, { url: `${origin}/spring`, title: 'kept' });
  assert.equal(over.statusCode, 429);
  assert.match(over.body, /^<fieldset id="preview-fields">/, 'htmx gets the fields back, with the sentence at the button');
  assert.match(over.body, /id="fetch-status">Too many fetches: the limit is 3 per minute for each user\. Try again in \d+ seconds?\./);
  assert.equal(valueOf(over.body, 'title'), 'kept');
  assert.ok(Number(over.headers['retry-after']) >= 1 && Number(over.headers['retry-after']) <= 60);
  const overJson = await first.post(url, { url: `${origin}/spring` }, JSON_ACCEPT);
  assert.equal(overJson.statusCode, 429);
  const body = envelope(overJson.body);
  assert.equal(body.error.code, 'rate_limit_exceeded');
  assert.match(body.error.message, /3 per minute for each user/);
  assert.match(body.error.doc_url, /#rate-limit_exceeded$/);
  assert.equal(hits, before, 'refused fetches reached nothing');

  // Another user of the workspace has an allowance of their own, until the workspace's (5) is spent;
  // the first user's refused fetches did not count against it.
  assert.equal((await second.post(url, { url: `${origin}/spring` })).statusCode, 200);
  assert.equal((await second.post(url, { url: `${origin}/spring` })).statusCode, 200);
  const workspaceOver = await second.post(url, { url: `${origin}/spring` }, JSON_ACCEPT);
  assert.equal(workspaceOver.statusCode, 429);
  assert.match(envelope(workspaceOver.body).error.message, /5 per minute for this workspace/);
});

/**
 * The A/B page's settings form (routes/insights.tsx): owners and members change the stored
 * metric and what an inconclusive test does; viewers read them and cannot post.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertLink } from '../test-support/conversions.js';
import { addUser, logIn, slugOf } from './testing.js';

let t: TestApp;
let slug: string;
let linkId: string;

before(async () => {
  t = await createTestApp();
  slug = await slugOf(t);
  const link = await insertLink(t, {
    test_variants: JSON.stringify([{ url: 'https://shop.example.com/a', percentage: 50 }, { url: 'https://shop.example.com/b', percentage: 50 }]),
    test_started_at: Date.now() - 3_600_000,
    test_completed_at: Date.now() + 3_600_000,
  });
  linkId = link.id;
});
after(() => t.close());

const settings = async () => (await t.inject({ method: 'GET', url: `/links/${linkId}/ab-test/settings` })).json();

test('a member saves the settings with the form; the page shows them and decides on the stored metric', async () => {
  const member = await logIn(t, await addUser(t, 'member'));
  const page = await member.get(`/dashboard/w/${slug}/links/${linkId}/ab-test`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<form method="post" action="[^"]+\/ab-test\/settings"/);
  const saved = await member.post(`/dashboard/w/${slug}/links/${linkId}/ab-test/settings`, { metric: 'revenue', onInconclusive: 'stop' });
  assert.equal(saved.statusCode, 303, saved.body.slice(0, 300));
  assert.match(String(saved.headers.location), /ab-test\?saved=1$/);
  assert.deepEqual(await settings(), { linkId, metric: 'revenue', onInconclusive: 'stop' });
  const after = await member.get(`/dashboard/w/${slug}/links/${linkId}/ab-test?saved=1`);
  assert.match(after.body, /<option value="revenue" selected>/);
  assert.match(after.body, /<option value="stop" selected>/);
  assert.match(after.body, /Revenue per click/, 'the result is shown on the stored metric');
  const bad = await member.post(`/dashboard/w/${slug}/links/${linkId}/ab-test/settings`, { metric: 'bounces', onInconclusive: 'stop' });
  assert.ok(bad.statusCode >= 400 && bad.statusCode < 500, `a bad metric is refused: ${bad.statusCode}`);
  assert.equal((await settings()).metric, 'revenue');
});

test('a viewer reads the settings and cannot change them', async () => {
  const viewer = await logIn(t, await addUser(t, 'viewer'));
  const page = await viewer.get(`/dashboard/w/${slug}/links/${linkId}/ab-test`);
  assert.equal(page.statusCode, 200);
  assert.doesNotMatch(page.body, /ab-test\/settings"/, 'no settings form');
  assert.match(page.body, /<dl class="facts" id="ab-settings">/);
  const before = await settings();
  const refused = await viewer.post(`/dashboard/w/${slug}/links/${linkId}/ab-test/settings`, { metric: 'clicks', onInconclusive: 'keep_splitting' });
  assert.equal(refused.statusCode, 403);
  assert.deepEqual(await settings(), before);
});

/**
 * The builder's sharing switches on the engine under test: "Share stats" (the API's publicStats,
 * the public page's address, conversions only when ticked) and "Custom link preview" (proxy: a
 * crawler gets the typed card). Beside link-builder.test.ts to keep each file within its time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hit } from '../redirect/testing.js';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { addUser, apiLink, createdId, createLink, logIn, slugOf } from './testing.js';

test('"Share stats" publishes the link\'s public page, with a copyable address; conversions only when ticked', async () => {
  const t = await createTestApp();
  try {
    const link = await createLink(t, { url: 'https://example.com/shared', key: 'shared' });
    const browser = await logIn(t, await addUser(t, 'member'));
    const edit = `/dashboard/w/${await slugOf(t)}/links/${link.id}/edit`;
    const before = await browser.get(edit);
    assert.match(before.body, /<input type="checkbox" name="publicStats" value="on"\/>/);
    assert.equal((await t.app.inject({ method: 'GET', url: `/stats/${encodeURIComponent(link.domain)}/shared` })).statusCode, 404);

    const fields = { url: 'https://example.com/shared', domain: link.domain, key: 'shared' };
    assert.equal((await browser.post(edit, { ...fields, publicStats: 'on' })).statusCode, 303);
    assert.equal((await apiLink(t, link.id)).publicStats, true, 'the API\'s publicStats is set');
    const page = await browser.get(edit);
    const address = /<p class="stats-url"><span>Public stats: <\/span><a href="([^"]+)"/.exec(page.body)?.[1];
    assert.equal(address, `${t.ctx.config.baseUrl}/stats/${encodeURIComponent(link.domain)}/shared`);
    assert.ok(page.body.includes(`data-copy="${address}"`));
    assert.match(page.body, /name="publicStats" value="on" checked/);
    assert.match(page.body, /name="publicConversions" value="on"\/>/, 'conversions stay off');
    const open = await t.app.inject({ method: 'GET', url: new URL(address!).pathname });
    assert.equal(open.statusCode, 200);
    assert.doesNotMatch(open.body, />Revenue</);

    assert.equal((await browser.post(edit, { ...fields, publicStats: 'on', publicConversions: 'on' })).statusCode, 303);
    assert.match((await t.app.inject({ method: 'GET', url: new URL(address!).pathname })).body, />Revenue</);
    assert.match((await browser.get(edit)).body, /name="publicConversions" value="on" checked/);

    // Unticking "Share stats" closes the page again.
    assert.equal((await browser.post(edit, { ...fields })).statusCode, 303);
    assert.equal((await apiLink(t, link.id)).publicStats, false);
    assert.equal((await t.app.inject({ method: 'GET', url: new URL(address!).pathname })).statusCode, 404);

    // Created with both ticked.
    const res = await browser.post(`/dashboard/w/${await slugOf(t)}/links/new`, { url: 'https://example.com/born', domain: link.domain, key: 'born', publicStats: 'on', publicConversions: 'on' });
    assert.equal(res.statusCode, 303, res.body);
    assert.match((await t.app.inject({ method: 'GET', url: `/stats/${encodeURIComponent(link.domain)}/born` })).body, />Revenue</);
  } finally {
    await t.close();
  }
});

test('"Custom link preview": a crawler of the new link gets the typed card (og:title), people the destination', async () => {
  const t = await createTestApp();
  try {
    const browser = await logIn(t, await addUser(t, 'member'));
    const base = `/dashboard/w/${await slugOf(t)}/links`;
    const form = await browser.get(`${base}/new`);
    assert.match(form.body, /<input type="checkbox" name="proxy" value="on" checked\/>/, 'ticked on a new link');
    const res = await browser.post(`${base}/new`, { url: 'https://shop.example.com/p', key: 'card', proxy: 'on', title: 'Spring sale', description: 'Half price' });
    assert.equal(res.statusCode, 303, res.body);
    const link = await apiLink(t, createdId(res.headers.location as string));
    assert.equal(link.proxy, true);
    const edit = await browser.get(res.headers.location as string);
    assert.match(edit.body, /<figure class="preview-card"[\s\S]*?shop\.example\.com[\s\S]*?<strong>Spring sale<\/strong><span>Half price<\/span>/);
    const server = await t.listen();
    const host = new URL(link.shortLink).host;
    const crawler = await hit(server, '/card', { host, headers: { 'user-agent': 'facebookexternalhit/1.1' } });
    assert.equal(crawler.status, 200);
    assert.match(crawler.body, /<meta property="og:title" content="Spring sale"/);
    const person = await hit(server, '/card', { host, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' } });
    assert.equal(person.status, 302);
    // Unticked: the link goes back to the destination's own card.
    const edited = await browser.post(`${base}/${link.id}/edit`, { url: 'https://shop.example.com/p', domain: link.domain, key: 'card', title: 'Spring sale' });
    assert.equal(edited.statusCode, 303);
    assert.equal((await apiLink(t, link.id)).proxy, false);
  } finally {
    await t.close();
  }
});

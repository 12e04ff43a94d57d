/**
 * `/docs` (issue 17): the API reference stays on this server. The configuration the page hands to
 * the viewer turns off every feature that sends the document elsewhere, and its script is served
 * from here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-support/harness.js';

/** The object literal passed to `createApiReference('#app', …)` in the served page. */
function servedConfig(html: string): Record<string, any> {
  const m = /createApiReference\('#app',\s*(\{[\s\S]*?\n\s*\})\)/.exec(html);
  assert.ok(m, 'the page calls createApiReference with a JSON configuration');
  return JSON.parse(m[1]!);
}

test('the /docs page disables the AI agent, MCP, developer tools, client button, telemetry and CDN fonts', async () => {
  const t = await createTestApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(res.statusCode, 200);
    const config = servedConfig(res.body);
    assert.equal(config.agent?.disabled, true);
    assert.equal(config.mcp?.disabled, true);
    assert.equal(config.showDeveloperTools, 'never');
    assert.equal(config.showToolbar, 'never');
    assert.equal(config.hideClientButton, true);
    assert.equal(config.telemetry, false);
    assert.equal(config.withDefaultFonts, false);
    assert.equal(config.proxyUrl, undefined, 'no request proxy');
    assert.equal(config.url, '/openapi.json');
    // The viewer's script comes from this server, not a CDN.
    assert.match(res.body, /<script src="js\/scalar\.js"/);
    assert.doesNotMatch(res.body, /cdn\.jsdelivr|esm\.js/);
    const script = await t.app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /javascript/);
    assert.ok(script.body.length > 100_000, 'the viewer script itself');
    // The viewer runs in an app of its own: its redirect and 404 come back through this one.
    const bare = await t.app.inject({ method: 'GET', url: '/docs' });
    assert.equal(bare.statusCode, 301);
    assert.equal(bare.headers.location, '/docs/');
    const missing = await t.app.inject({ method: 'GET', url: '/docs/nothing-here' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'not_found');
  } finally {
    await t.close();
  }
});

test('the dashboard links to the API reference', async () => {
  const { addUser, logIn, slugOf } = await import('../dashboard/testing.js');
  const t = await createTestApp();
  try {
    const owner = await logIn(t, await addUser(t, 'owner'));
    const page = await owner.get(`/dashboard/w/${await slugOf(t)}/analytics`);
    assert.match(page.body, /<a href="\/docs"[^>]*>API reference<\/a>/);
  } finally {
    await t.close();
  }
});

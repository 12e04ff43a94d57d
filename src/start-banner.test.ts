import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskKey, startBanner } from './start-banner.js';

const config = { baseUrl: 'http://localhost:3000', shortLinkProtocol: 'http' as const, shortDomain: 'wm.localhost:3000' };
const workspace = { id: 'ws_01TEST', slug: 'default' };

test('a key from WAYMARK_API_KEY never appears in the banner, only its first 6 and last 4 characters; the command reads the variable', () => {
  const apiKey = 'wm_live_0123456789abcdefWXYZ';
  const banner = startBanner({ config: { ...config, apiKey }, engine: 'PostgreSQL', workspace });
  assert.equal(banner.includes(apiKey), false);
  assert.equal(banner.includes('0123456789abcdef'), false);
  assert.match(banner, /API key:\s+wm_liv…WXYZ/);
  assert.match(banner, /curl -H "Authorization: Bearer \$WAYMARK_API_KEY" http:\/\/localhost:3000\/workspaces\/ws_01TEST/);
  assert.match(banner, /the key is the value of WAYMARK_API_KEY/);
  assert.equal(banner.includes('Bearer wm_liv…'), false, 'no masked key in a command: pasted, it answers 401');
});

test('a key created on this start is printed in full (the only way to learn it), in the command too', () => {
  const createdKey = 'wm_AbCdEfGhIjKlMnOpQrStUvWx';
  const banner = startBanner({ config, engine: 'SQLite (./data/waymark.db)', workspace, createdKey });
  assert.match(banner, /API key:\s+wm_AbCdEfGhIjKlMnOpQrStUvWx\n/);
  assert.match(banner, /curl -H "Authorization: Bearer wm_AbCdEfGhIjKlMnOpQrStUvWx" http:\/\/localhost:3000\/workspaces\/ws_01TEST/);
});

test('a short key keeps only its prefix; no key shows a placeholder', () => {
  assert.equal(maskKey('wm_short_key'), 'wm_…');
  assert.equal(maskKey('wm_0123456789abcdefghijklmn'), 'wm_012…klmn');
  assert.match(startBanner({ config, engine: 'PostgreSQL', workspace }), /Bearer <key>/);
});

test('while no dashboard user exists, the banner prints the one-time setup address', () => {
  const banner = startBanner({ config, engine: 'PostgreSQL', workspace, setupToken: 'tok_123' });
  assert.match(banner, /http:\/\/localhost:3000\/setup\?token=tok_123\n/);
  assert.match(banner, /it works once, for 24 hours; each start replaces it/);
  assert.match(banner, /Dashboard:\s+http:\/\/localhost:3000\/dashboard/);
  assert.equal(startBanner({ config, engine: 'PostgreSQL', workspace }).includes('/setup'), false);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { VERSION, findVersion } from './version.js';
import { runCli } from './cli/index.js';
import { createTestApp } from './test-support/harness.js';

const packageVersion = (JSON.parse(readFileSync(resolve('package.json'), 'utf8')) as { version: string }).version;

test('one version: package.json, `waymark --version`, GET /health and the OpenAPI info.version', async () => {
  assert.equal(VERSION, packageVersion);
  const lines: string[] = [];
  assert.equal(await runCli(['--version'], (l) => lines.push(l), {}), 0);
  assert.deepEqual(lines, [packageVersion]);
  const t = await createTestApp();
  try {
    assert.deepEqual((await t.app.inject({ method: 'GET', url: '/health' })).json(), { status: 'ok', version: packageVersion });
    assert.equal((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json().info.version, packageVersion);
  } finally {
    await t.close();
  }
});

test('findVersion walks up to the package.json named waymark', () => {
  assert.equal(findVersion(resolve('src/links')), packageVersion);
  assert.throws(() => findVersion('/'), /no package.json of waymark/);
});

test('CHANGELOG.md has a section for the current version', () => {
  const changelog = readFileSync(resolve('CHANGELOG.md'), 'utf8');
  assert.match(changelog, new RegExp(`^## ${packageVersion.replace(/\./g, '\\.')}\\b`, 'm'));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './index.js';
import { openDatabase } from '../db/open.js';
import { hashApiKey } from '../workspaces/api-keys.js';

test('CLI creates workspaces and keys, lists and revokes them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-cli-'));
  const env = { DATABASE_URL: `file:${join(dir, 'cli.db')}` };
  const lines: string[] = [];
  const out = (l: string) => lines.push(l);
  try {
    assert.equal(await runCli(['workspaces', 'create', '--name', 'Acme Inc', '--plan', 'pro'], out, env), 0);
    assert.match(lines.join('\n'), /Created workspace ws_\w+ \(acme-inc, plan pro\)/);
    const firstKey = /API key \(shown once\): (wm_\w+)/.exec(lines.join('\n'))![1]!;

    lines.length = 0;
    assert.equal(await runCli(['keys', 'create', '-w', 'acme-inc', '--scopes', 'links.read analytics.read'], out, env), 0);
    const scopedKey = /API key \(shown once\): (wm_\w+)/.exec(lines.join('\n'))![1]!;
    const keyId = /Created key (key_\w+)/.exec(lines.join('\n'))![1]!;

    const database = await openDatabase(env.DATABASE_URL);
    const rows = await database.db.selectFrom('api_keys').selectAll().execute();
    await database.close();
    assert.equal(rows.length, 2);
    assert.deepEqual(rows.map((r) => r.hashed_key).sort(), [hashApiKey(firstKey), hashApiKey(scopedKey)].sort());
    assert.equal(rows.find((r) => r.id === keyId)!.scopes, 'links.read analytics.read');

    lines.length = 0;
    assert.equal(await runCli(['keys', 'revoke', keyId, '-w', 'acme-inc'], out, env), 0);
    assert.equal(await runCli(['keys', 'list', '-w', 'acme-inc'], out, env), 0);
    assert.match(lines.join('\n'), new RegExp(`${keyId}\\t\\S+\\trevoked`));
    // The audit log names the command line as the actor of each change.
    const audit = await openDatabase(env.DATABASE_URL);
    const entries = await audit.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
    await audit.close();
    // (Ids made in one millisecond sort at random: compared as a set.)
    assert.deepEqual(entries.map((e) => `${e.action} ${e.actor_type}`).sort(), ['api_key.create cli', 'api_key.create cli', 'api_key.revoke cli', 'workspace.create cli']);
    assert.equal(entries.find((e) => e.action === 'api_key.revoke')!.target, keyId);
    // Exports and a visitor's erasure are recorded too; the erasure never names what it erased.
    assert.equal(await runCli(['export', 'links', '--workspace', 'acme-inc', '--out', join(dir, 'links.csv')], out, env), 0);
    assert.equal(await runCli(['erase', '--ip', '203.0.113.7'], out, env), 0);
    const more = await openDatabase(env.DATABASE_URL);
    const later = await more.db.selectFrom('audit_log').selectAll().where('action', 'in', ['export.links', 'visitor.erase']).execute();
    await more.close();
    assert.deepEqual(later.map((e) => `${e.action} ${e.actor_type}`).sort(), ['export.links cli', 'visitor.erase cli']);
    assert.deepEqual(JSON.parse(later.find((e) => e.action === 'visitor.erase')!.changes), { by: 'ip' });
    assert.ok(!JSON.stringify(later).includes('203.0.113'), 'the erased address is not kept');
    assert.equal(await runCli(['keys', 'create', '-w', 'acme-inc', '--scopes', 'bogus'], out, env), 1);
    assert.equal(await runCli(['workspaces', 'create', '--name', 'X', '--plan', 'gold'], out, env), 1);
    assert.equal(await runCli(['keys', 'list', '-w', 'nope'], out, env), 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI verifies a domain: --force marks it verified', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-cli-'));
  const env = { DATABASE_URL: `file:${join(dir, 'cli.db')}`, DOMAIN_VERIFICATION: 'dns', DOMAIN_DNS_TARGET: '127.0.0.1' };
  const lines: string[] = [];
  try {
    assert.equal(await runCli(['workspaces', 'create', '--name', 'Dom Co'], (l) => lines.push(l), env), 0);
    const database = await openDatabase(env.DATABASE_URL);
    const ws = await database.db.selectFrom('workspaces').select('id').executeTakeFirstOrThrow();
    const t = Date.now();
    await database.db
      .insertInto('domains')
      .values({ id: 'dom_cli', workspace_id: ws.id, slug: 'go.dom.test', verified: 0, primary: 1, archived: 0, placeholder: null, expired_url: null, not_found_url: null, logo: null, asset_links: null, apple_app_site_association: null, created_at: t, updated_at: t })
      .execute();
    assert.equal(await runCli(['domains', 'verify', 'go.dom.test', '--force'], (l) => lines.push(l), env), 0);
    assert.match(lines.at(-1)!, /^go\.dom\.test: verified/);
    const row = await database.db.selectFrom('domains').select('verified').where('id', '=', 'dom_cli').executeTakeFirstOrThrow();
    assert.equal(row.verified, 1);
    assert.equal(await runCli(['domains', 'verify', 'unknown.test', '--force'], (l) => lines.push(l), env), 1);
    await database.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI users: create with a membership, list, reset the password (ending sessions), add a membership', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-cli-'));
  const env = { DATABASE_URL: `file:${join(dir, 'cli.db')}` };
  const lines: string[] = [];
  const out = (l: string) => lines.push(l);
  try {
    assert.equal(await runCli(['workspaces', 'create', '--name', 'Acme', '--slug', 'acme'], out, env), 0);
    assert.equal(await runCli(['workspaces', 'create', '--name', 'Beta', '--slug', 'beta'], out, env), 0);
    lines.length = 0;
    assert.equal(await runCli(['users', 'create', '--email', 'Ann@Example.com', '--name', 'Ann', '-w', 'acme', '--role', 'owner'], out, env), 0);
    assert.match(lines[0]!, /^Created user user_\w+ \(Ann@Example\.com\), owner of acme$/);
    const first = /Password \(shown once\): (\S+)/.exec(lines.join('\n'))![1]!;

    const database = await openDatabase(env.DATABASE_URL);
    const { createUsersModule } = await import('../users/module.js');
    const users = createUsersModule({ database, now: Date.now });
    const user = (await users.service.checkPassword('ann@example.com', first))!;
    assert.ok(user);
    await users.sessions.start(user.id);

    lines.length = 0;
    assert.equal(await runCli(['users', 'reset-password', 'ANN@example.com'], out, { ...env, WAYMARK_USER_PASSWORD: 'a new secret 123' }), 0);
    assert.deepEqual(lines, ['Password of Ann@Example.com reset; 1 session ended']);
    assert.equal(await users.service.checkPassword('ann@example.com', first), null);
    assert.ok(await users.service.checkPassword('ann@example.com', 'a new secret 123'));

    assert.equal(await runCli(['users', 'add-membership', 'ann@example.com', '-w', 'beta', '--role', 'member'], out, env), 0);
    assert.equal(await runCli(['users', 'add-membership', 'ann@example.com', '-w', 'beta', '--role', 'viewer'], out, env), 0);
    assert.equal(await runCli(['users', 'add-membership', 'ann@example.com', '-w', 'beta', '--role', 'viewer'], out, env), 0, 'the same role again: no change');
    assert.equal(await runCli(['users', 'add-membership', 'ann@example.com', '-w', 'beta', '--role', 'admin'], out, env), 1);
    assert.equal(await runCli(['users', 'add-membership', 'ann@example.com', '-w', 'acme', '--role', 'member'], out, env), 1, 'acme keeps its only owner');
    // Each change of a membership is in beta's audit log, the command line its actor; refusals and the repeat write none.
    const beta = (await database.db.selectFrom('workspaces').select('id').where('slug', '=', 'beta').executeTakeFirstOrThrow()).id;
    const members = await database.db.selectFrom('audit_log').selectAll().where('target_type', '=', 'member').where('workspace_id', '=', beta).execute();
    assert.deepEqual(
      members.map((e) => [e.action, e.actor_type, e.actor_id, e.target, JSON.parse(e.changes)]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      [
        ['member.add', 'cli', null, user.id, { role: 'member' }],
        ['member.role', 'cli', null, user.id, { role: 'viewer' }],
      ],
    );
    assert.equal(await runCli(['users', 'create', '--email', 'ann@EXAMPLE.com', '--name', 'Twin'], out, env), 1);
    lines.length = 0;
    assert.equal(await runCli(['users', 'list'], out, env), 0);
    assert.match(lines.join('\n'), /^user_\w+\tAnn@Example\.com\tacme:owner,beta:viewer\tAnn$/);
    await database.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the command line: `waymark --version` prints the version; a bad option is one line, not a stack trace', async () => {
  const { spawnSync } = await import('node:child_process');
  const { entryArgs } = await import('../test-support/entry.js');
  const { VERSION } = await import('../version.js');
  const run = (...args: string[]) => spawnSync(process.execPath, [...entryArgs('src/cli/index.ts'), ...args], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: 'file::memory:' } });
  const version = run('--version');
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout.trim(), VERSION);
  const bad = run('workspaces', 'list', '--nonsense');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^waymark: .*--nonsense/);
  assert.equal(/\n\s+at /.test(bad.stderr), false, `no stack trace: ${bad.stderr}`);
});

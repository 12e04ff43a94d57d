import { eventsUrlFor } from './events/index.js';
import { describe, test } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from './config.js';
import { readEnvironment, SECRET_SETTINGS } from './env-files.js';

test('defaults: port 3000, SQLite file, local base URL and short domain', () => {
  const c = loadConfig({});
  assert.equal(c.port, 3000);
  assert.equal(c.databaseUrl, 'file:./data/waymark.db');
  assert.equal(c.baseUrl, 'http://localhost:3000');
  assert.equal(c.shortDomain, 'wm.localhost:3000');
  assert.equal(c.shortLinkProtocol, 'http');
  assert.ok(c.apiHosts.includes('localhost') && c.apiHosts.includes('127.0.0.1'));
  assert.equal(c.clickIdParam, 'waymark_id');
  assert.equal(c.clickBufferMax, 500_000);
  assert.equal(c.clickWriterNice, 10);
  assert.equal(c.clickMaxLagMs, 250);
  assert.equal(c.clickMaxHoldMs, 2000);
  assert.equal(c.clickShutdownGraceMs, 8000);
  assert.equal(c.clickSpillDir, undefined);
});

test('click durability settings: the lag bound (0 turns it off), the hold limit, the shutdown grace, the spill folder', () => {
  const c = loadConfig({ CLICK_MAX_LAG_MS: '0', CLICK_MAX_HOLD_MS: '500', CLICK_SHUTDOWN_GRACE_MS: '25000', CLICK_SPILL_DIR: '/var/lib/waymark/spill' });
  assert.equal(c.clickMaxLagMs, 0);
  assert.equal(c.clickMaxHoldMs, 500);
  assert.equal(c.clickShutdownGraceMs, 25_000);
  assert.equal(c.clickSpillDir, '/var/lib/waymark/spill');
});

test('CLICK_BUFFER_MAX sets how many clicks may wait in memory', () => {
  assert.equal(loadConfig({ CLICK_BUFFER_MAX: '2000000' }).clickBufferMax, 2_000_000);
});

test('CLICK_WRITER_NICE sets the click writer thread\'s nice value; 0 leaves it alone', () => {
  assert.equal(loadConfig({ CLICK_WRITER_NICE: '0' }).clickWriterNice, 0);
  assert.equal(loadConfig({ CLICK_WRITER_NICE: '19' }).clickWriterNice, 19);
});

test('a public BASE_URL gives https short links on go.<host>', () => {
  const c = loadConfig({ BASE_URL: 'https://api.example.com/' });
  assert.equal(c.baseUrl, 'https://api.example.com');
  assert.equal(c.shortDomain, 'go.api.example.com');
  assert.equal(c.shortLinkProtocol, 'https');
  assert.ok(c.apiHosts.includes('api.example.com'));
});

test('bad values stop the start with a message naming the variable', () => {
  for (const [name, value] of [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['BASE_URL', 'ftp://x'],
    ['LOG_LEVEL', 'loud'],
    ['WAYMARK_API_KEY', 'sk_live'],
    ['TRUST_PROXY', 'maybe'],
    ['CLICK_BUFFER_MAX', '10'],
    ['CLICK_WRITER_NICE', '-5'],
    ['CLICK_WRITER_NICE', '20'],
    ['CLICK_MAX_LAG_MS', '-1'],
    ['CLICK_MAX_HOLD_MS', '0'],
    // Under a second leaves no time to spill after the last commit attempt.
    ['CLICK_SHUTDOWN_GRACE_MS', '500'],
  ]) {
    assert.throws(() => loadConfig({ [name!]: value }), (err: unknown) => err instanceof ConfigError && err.message.includes(name!), `${name}=${value}`);
  }
});

test('privacy settings: addresses anonymized, events and rollups kept forever, a one-hour click-id cookie by default', () => {
  const c = loadConfig({});
  assert.equal(c.visitorIp, 'anonymized');
  assert.equal(c.eventsRetentionDays, undefined);
  assert.equal(c.rollupsRetentionDays, undefined);
  assert.equal(c.clickIdCookieSeconds, 3600);
  const set = loadConfig({ VISITOR_IP: 'none', EVENTS_RETENTION_DAYS: '90', ROLLUPS_RETENTION_DAYS: '730', CLICK_ID_COOKIE_DAYS: '0.5' });
  assert.deepEqual([set.visitorIp, set.eventsRetentionDays, set.rollupsRetentionDays, set.clickIdCookieSeconds], ['none', 90, 730, 43_200]);
  assert.throws(() => loadConfig({ VISITOR_IP: 'partial' }), /VISITOR_IP/);
  assert.throws(() => loadConfig({ EVENTS_RETENTION_DAYS: '0' }), /EVENTS_RETENTION_DAYS/);
  assert.throws(() => loadConfig({ CLICK_ID_COOKIE_DAYS: '-1' }), /CLICK_ID_COOKIE_DAYS/);
});

test('EVENTS_URL: unset by default (chosen by the database), DuckDB beside the database or at a path; DuckDB sized for a small machine', () => {
  const c = loadConfig({});
  assert.deepEqual([c.eventsUrl, c.duckdbMemoryLimit, c.duckdbThreads, c.duckdbCheckpointMb], [undefined, '512MB', 2, 64]);
  assert.equal(loadConfig({ DUCKDB_CHECKPOINT_MB: '256' }).duckdbCheckpointMb, 256);
  assert.equal(eventsUrlFor(undefined, { singleProcess: true }), 'duckdb', 'SQLite: one process');
  assert.equal(eventsUrlFor(undefined, { singleProcess: false }), 'sql', 'PostgreSQL deployments may run several processes');
  assert.equal(eventsUrlFor('sql', { singleProcess: true }), 'sql');
  assert.equal(loadConfig({ EVENTS_URL: 'duckdb' }).eventsUrl, 'duckdb');
  assert.equal(loadConfig({ EVENTS_URL: 'duckdb:/var/lib/waymark/events.duckdb' }).eventsUrl, 'duckdb:/var/lib/waymark/events.duckdb');
  assert.equal(loadConfig({ DUCKDB_MEMORY_LIMIT: '2GB', DUCKDB_THREADS: '4' }).duckdbMemoryLimit, '2GB');
  assert.equal(loadConfig({ EVENTS_URL: 'clickhouse://localhost' }).eventsUrl, 'clickhouse://localhost');
  for (const [name, value] of [['EVENTS_URL', 'mysql://localhost'], ['EVENTS_URL', 'duckdb:'], ['DUCKDB_MEMORY_LIMIT', "1GB'; drop"], ['DUCKDB_THREADS', '0'], ['DUCKDB_CHECKPOINT_MB', '0'], ['DUCKDB_CHECKPOINT_MB', '64MB']]) {
    assert.throws(() => loadConfig({ [name]: value }), (err: Error) => err instanceof ConfigError && err.message.includes(name!));
  }
});

test('OIDC_*: unset means no SSO; an issuer needs its client and allowed domains; defaults viewer, the first workspace, "single sign-on"', () => {
  assert.equal(loadConfig({}).oidc, undefined);
  const full = { OIDC_ISSUER: 'https://id.example.com/realms/acme', OIDC_CLIENT_ID: 'waymark', OIDC_CLIENT_SECRET: 's3cret', OIDC_ALLOWED_DOMAINS: 'Example.com, acme.test' };
  assert.deepEqual(loadConfig(full).oidc, {
    issuer: 'https://id.example.com/realms/acme',
    clientId: 'waymark',
    clientSecret: 's3cret',
    allowedDomains: ['example.com', 'acme.test'],
    defaultRole: 'viewer',
    defaultWorkspace: undefined,
    roleClaim: undefined,
    only: false,
    name: 'single sign-on',
  });
  const set = loadConfig({ ...full, OIDC_DEFAULT_ROLE: 'member', OIDC_DEFAULT_WORKSPACE: 'acme', OIDC_ROLE_CLAIM: 'groups', OIDC_ONLY: 'true', OIDC_NAME: 'Acme' }).oidc!;
  assert.deepEqual([set.defaultRole, set.defaultWorkspace, set.roleClaim, set.only, set.name], ['member', 'acme', 'groups', true, 'Acme']);
  for (const missing of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ALLOWED_DOMAINS']) {
    assert.throws(() => loadConfig({ ...full, [missing]: undefined }), (err: Error) => err instanceof ConfigError && err.message.includes(missing) && err.message.includes('required when OIDC_ISSUER'));
  }
  assert.throws(() => loadConfig({ OIDC_CLIENT_ID: 'waymark' }), /OIDC_ISSUER: required when OIDC_CLIENT_ID/);
  assert.throws(() => loadConfig({ OIDC_ONLY: 'true' }), /OIDC_ISSUER/);
  assert.throws(() => loadConfig({ ...full, OIDC_ISSUER: 'http://id.example.com' }), /OIDC_ISSUER: must be an https URL/);
  assert.equal(loadConfig({ ...full, OIDC_ISSUER: 'http://127.0.0.1:4000' }).oidc?.issuer, 'http://127.0.0.1:4000');
  assert.throws(() => loadConfig({ ...full, OIDC_DEFAULT_ROLE: 'admin' }), /OIDC_DEFAULT_ROLE/);
  assert.throws(() => loadConfig({ ...full, OIDC_ALLOWED_DOMAINS: 'not a domain' }), /OIDC_ALLOWED_DOMAINS/);
});

describe('readEnvironment: secrets from <NAME>_FILE and a .env file', () => {
  const files = (entries: Record<string, string>) => (path: string) => {
    if (path in entries) return entries[path]!;
    throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  };

  test('every secret setting is read from its _FILE, without the trailing line break', () => {
    const env: Record<string, string> = {};
    const contents: Record<string, string> = {};
    for (const name of SECRET_SETTINGS) {
      env[`${name}_FILE`] = `/run/secrets/${name}`;
      contents[`/run/secrets/${name}`] = `value-of-${name}\n`;
    }
    const out = readEnvironment(env, { readFile: files(contents), dotenvPath: '/none/.env' });
    for (const name of SECRET_SETTINGS) {
      assert.equal(out[name], `value-of-${name}`);
      assert.equal(out[`${name}_FILE`], undefined, `${name}_FILE is not passed on`);
    }
    assert.deepEqual([...SECRET_SETTINGS].sort(), ['DATABASE_URL', 'EVENTS_URL', 'METRICS_TOKEN', 'OIDC_CLIENT_SECRET', 'SMTP_URL', 'WAYMARK_API_KEY']);
  });

  test('a key from a file reaches the config; a CRLF file ending is dropped too', () => {
    const out = readEnvironment({ WAYMARK_API_KEY_FILE: '/k', METRICS_TOKEN_FILE: '/m' }, { readFile: files({ '/k': 'wm_fromfile\r\n', '/m': 'abcdefghijklmnopqrstuvwx' }), dotenvPath: '/none' });
    const c = loadConfig(out);
    assert.equal(c.apiKey, 'wm_fromfile');
    assert.equal(c.metrics.token, 'abcdefghijklmnopqrstuvwx');
  });

  test('precedence: the real environment, then _FILE, then .env', () => {
    const readFile = files({
      '/app/.env': 'PORT=4000\nLOG_LEVEL=warn\nWAYMARK_API_KEY=wm_dotenv\nSMTP_URL=smtp://dotenv\nSMTP_URL_FILE=/smtp\nMETRICS_TOKEN_FILE=/metrics\n',
      '/smtp': 'smtp://fromfile:587\n',
      '/metrics': 'token-from-dotenv-file\n',
      '/key': 'wm_file\n',
    });
    const out = readEnvironment({ PORT: '5000', WAYMARK_API_KEY_FILE: '/key' }, { readFile, dotenvPath: '/app/.env' });
    assert.equal(out.PORT, '5000', 'the real environment wins over .env');
    assert.equal(out.LOG_LEVEL, 'warn', '.env fills what the environment leaves unset');
    assert.equal(out.WAYMARK_API_KEY, 'wm_file', 'a _FILE of the environment wins over .env');
    assert.equal(out.SMTP_URL, 'smtp://fromfile:587', 'a _FILE wins over the plain value, in .env too');
    assert.equal(out.METRICS_TOKEN, 'token-from-dotenv-file', 'a _FILE named in .env is read');
    const real = readEnvironment({ SMTP_URL: 'smtp://real' }, { readFile, dotenvPath: '/app/.env' });
    assert.equal(real.SMTP_URL, 'smtp://real', 'the real environment wins over a _FILE of .env');
  });

  test('no .env file: the environment as it is', () => {
    const out = readEnvironment({ PORT: '3001' }, { readFile: files({}), dotenvPath: '/none/.env' });
    assert.deepEqual(out, { PORT: '3001' });
  });

  test('refused: both NAME and NAME_FILE, an unreadable, empty or multi-line file', () => {
    const readFile = files({ '/empty': '\n', '/two': 'a\nb\n' });
    const opts = { readFile, dotenvPath: '/none' };
    assert.throws(() => readEnvironment({ DATABASE_URL: 'x', DATABASE_URL_FILE: '/x' }, opts), (e: Error) => e instanceof ConfigError && /DATABASE_URL_FILE: DATABASE_URL is set too/.test(e.message));
    assert.throws(() => readEnvironment({ DATABASE_URL_FILE: '/missing' }, opts), (e: Error) => e instanceof ConfigError && /DATABASE_URL_FILE: cannot read \/missing \(ENOENT\)/.test(e.message));
    assert.throws(() => readEnvironment({ SMTP_URL_FILE: '/empty' }, opts), /SMTP_URL_FILE: \/empty is empty/);
    assert.throws(() => readEnvironment({ OIDC_CLIENT_SECRET_FILE: '/two' }, opts), /OIDC_CLIENT_SECRET_FILE: \/two holds more than one line/);
  });

  test('reads real files: a .env in the given path and a secret file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'waymark-env-'));
    try {
      writeFileSync(join(dir, '.env'), `# comment\nDATABASE_URL_FILE=${join(dir, 'db')}\nHOST="127.0.0.1"\n`);
      writeFileSync(join(dir, 'db'), 'postgres://u:p@db/waymark\n');
      const out = readEnvironment({}, { dotenvPath: join(dir, '.env') });
      assert.equal(out.DATABASE_URL, 'postgres://u:p@db/waymark');
      assert.equal(out.HOST, '127.0.0.1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('traces: off by default; OTEL_EXPORTER_OTLP_ENDPOINT turns them on with /v1/traces, headers and sampling parsed', () => {
  assert.equal(loadConfig({}).tracing, undefined);
  const on = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-team = links', OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing;
  assert.deepEqual(on, { url: 'http://collector:4318/v1/traces', headers: { authorization: 'Bearer abc', 'x-team': 'links' }, serviceName: 'waymark', sampleRatio: 0.25, exportDelayMs: 5000 });
  assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example/api/traces' }).tracing?.url, 'https://otel.example/api/traces');
  assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing, undefined);
  assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' }), /OTEL_EXPORTER_OTLP_ENDPOINT/);
  assert.throws(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' }), /OTEL_EXPORTER_OTLP_HEADERS/);
  assert.throws(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: '2' }), /OTEL_TRACES_SAMPLER_ARG/);
});

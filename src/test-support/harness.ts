/**
 * Test harness: a whole Waymark app on a fresh database, on the engine chosen by DATABASE_URL
 * (SQLite temp file by default, a private PostgreSQL schema when DATABASE_URL is postgres://…).
 *
 * @example
 * const t = await createTestApp();
 * const res = await t.inject({ method: 'GET', url: `/workspaces/${t.workspaceId}` });
 * await t.close();
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../config.js';
import { openDatabase, isPostgresUrl, type OpenDatabase } from '../db/open.js';
import { buildApp } from '../app.js';
import type { Plan } from '../workspaces/plans.js';
import type { Subscriber } from '../outbox/publisher.js';

export const TEST_ENGINE: 'sqlite' | 'postgres' = isPostgresUrl(process.env.DATABASE_URL ?? '') ? 'postgres' : 'sqlite';

export interface TestWorkspace {
  workspaceId: string;
  key: string;
  /** Headers with this workspace's bearer key. */
  headers: Record<string, string>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  env?: Record<string, string>;
  plan?: Plan;
  now?: () => number;
  /** Domain event subscribers registered at start (outbox/publisher.ts). */
  subscribers?: readonly Subscriber[];
  /** The event log on its own thread, as the served process runs it (default: on the test's thread). */
  eventLogThread?: boolean;
}

/**
 * The DATABASE_URL another process (or the CLI) opens this database with: the SQLite file, or the
 * server's URL with `?schema=` (through search_path alone, Kysely's migrator looks for its tables
 * in every schema and trips over other tests' ones).
 */
export function databaseUrlOf(database: OpenDatabase): string {
  if (!database.pgSchema) return `file:${database.sqlitePath}`;
  const u = new URL(database.url);
  u.searchParams.set('schema', database.pgSchema);
  return u.toString();
}

/** Opens a fresh, migrated database on the engine under test. */
export async function openTestDatabase(): Promise<{ database: OpenDatabase; url: string; dispose(): Promise<void> }> {
  const envUrl = process.env.DATABASE_URL ?? '';
  if (isPostgresUrl(envUrl)) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const database = await openDatabase(envUrl, { pgSchema: schema, poolSize: 4 });
    return {
      database,
      url: envUrl,
      dispose: async () => {
        const client = new pg.Client({ connectionString: envUrl });
        await client.connect();
        await client.query(`drop schema if exists ${schema} cascade`);
        await client.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'waymark-test-'));
  const file = join(dir, 'test.db');
  copyFileSync(await sqliteTemplate(), file);
  const url = `file:${file}`;
  const database = await openDatabase(url);
  return { database, url, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
}

let template: Promise<string> | null = null;
/**
 * A SQLite file migrated once per test process, which every test database starts as a copy of:
 * running the migrations costs ~80 ms of CPU, a copy well under 1 ms, and a test process builds
 * many apps. openDatabase still runs the migrator on the copy, which finds nothing to do. Closing
 * the template's connection copies its log back, so the one file is the whole database.
 */
function sqliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waymark-test-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'template.db');
    const database = await openDatabase(`file:${file}`);
    await database.close();
    return file;
  })();
  return template;
}

export async function createTestApp(options: TestAppOptions = {}) {
  const { database, dispose } = await openTestDatabase();
  const config = loadConfig(
    { PORT: '3999', BASE_URL: 'http://localhost:3999', LOG_LEVEL: 'silent', CLICK_FLUSH_INTERVAL_MS: '20', SECRETS_KEY: randomBytes(32).toString('hex'), ...options.env },
    // Limits no suite meets by accident (tests send bad keys and many QR requests from 127.0.0.1);
    // the limits themselves are tested with low values (access/rate-limit.test.ts).
    // The event store: the SQL store unless a test names one (many suites read its tables), or
    // TEST_EVENTS_URL for a whole run (`npm run test:duckdb` runs the SDK suites on DuckDB).
    { rateLimitPerMinute: 100_000, analyticsRateLimitPerSecond: 100_000, qrRateLimitPerMinute: 100_000, tlsAllowRateLimitPerMinute: 100_000, failedAuthRateLimitPerMinute: 100_000, eventsUrl: process.env.TEST_EVENTS_URL || 'sql', ...options.config },
  );
  // The event log on this thread: a log thread per test app would load its modules again through
  // tsx in every test (about a second of CPU each). Tests of the real process run the thread.
  const { app, ctx, modules, routes } = await buildApp({ config, database, logger: false, now: options.now, subscribers: options.subscribers, eventLogInThread: options.eventLogThread !== true });
  const ws = await ctx.workspaces.createWorkspace({ name: 'Test workspace', plan: options.plan ?? 'enterprise' });
  const { key } = await ctx.workspaces.createKey(ws.id, { name: 'test' });

  let closed = false;
  const harness = {
    app,
    ctx,
    modules,
    routes,
    config,
    database,
    workspaceId: ws.id,
    key,
    headers: { authorization: `Bearer ${key}` } as Record<string, string>,

    /** `app.inject` with this workspace's key unless `headers.authorization` is given. */
    inject(opts: InjectOptions & { url: string }): Promise<LightMyRequestResponse> {
      return app.inject({ ...opts, headers: { authorization: `Bearer ${key}`, ...(opts.headers ?? {}) } });
    },

    /** A second (or third …) workspace with its own key. */
    async addWorkspace(plan: Plan = 'enterprise', scopes: string[] | null = null): Promise<TestWorkspace> {
      const other = await ctx.workspaces.createWorkspace({ name: `Other ${randomBytes(3).toString('hex')}`, plan });
      const created = await ctx.workspaces.createKey(other.id, { name: 'other', scopes });
      return { workspaceId: other.id, key: created.key, headers: { authorization: `Bearer ${created.key}` } };
    },

    /** Starts listening on a random loopback port (for the SDK and real HTTP); returns the base URL. */
    async listen(): Promise<string> {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      if (!address || typeof address === 'string') throw new Error('no address');
      return `http://127.0.0.1:${address.port}`;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await app.close();
      await database.close();
      await dispose();
    },
  };
  return harness;
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;

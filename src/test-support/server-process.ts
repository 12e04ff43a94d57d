/**
 * The real process in tests: `src/main.ts` started on a private database (a temporary SQLite file
 * or a fresh PostgreSQL schema), a load of new clicks over keep-alive connections, and a way to
 * hold the database's write lock from outside (a slow database). For the shutdown and crash
 * tests of the click path (src/redirect/sigterm.test.ts, crash.test.ts).
 *
 * @example
 * const db = await privateDatabase();
 * const server = await startServer(db.url, await freePort(), key);
 * const load = startClickLoad({ port, host: 'wm.localhost:1234', path: '/abc', ipPrefix: '10.8' });
 * const lock = await holdWriteLock(db.url); ...; await lock.release();
 */
import { Agent, request } from 'node:http';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { openDatabase, sqliteFileFromUrl, splitPgSchema } from '../db/open.js';
import { TEST_ENGINE } from './harness.js';

export const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

export { freePort, privateDatabase, startServer, type PrivateDatabase, type RunningServer as ServerProcess } from './processes.js';

/** Creates a link through the API; returns its id and short-link host and path. */
export async function createLink(port: number, key: string, body: { url: string; key: string }): Promise<{ id: string; host: string; path: string; shortLink: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`POST /links: ${res.status} ${await res.text()}`);
  const { id, shortLink } = (await res.json()) as { id: string; shortLink: string };
  const u = new URL(shortLink);
  return { id, host: u.host, path: u.pathname, shortLink };
}

export interface ClickLoad {
  /** Client IP (X-Forwarded-For) of every request sent. */
  readonly sent: Set<string>;
  /** Client IP → Date.now() when its 302 arrived. */
  readonly answered: Map<string, number>;
  /** Time of the last 302, Date.now(). */
  lastAnswerAt(): number;
  /** Settles when every connection has stopped (`max` reached, an error, or stop()). */
  readonly done: Promise<void>;
  /** Stops sending and waits for the requests in flight to end (or fail). */
  stop(): Promise<void>;
}

/**
 * Requests of a short link over `connections` keep-alive connections, each from its own client
 * IP (`<ipPrefix>.<n>.<n>`: needs TRUST_PROXY=true), so each is a new click. A connection stops at
 * its first error (the server went away); `max` caps the requests.
 */
export function startClickLoad(options: { port: number; host: string; path: string; ipPrefix: string; connections?: number; max?: number }): ClickLoad {
  const connections = options.connections ?? 12;
  const max = options.max ?? 60_000;
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const sent = new Set<string>();
  const answered = new Map<string, number>();
  let last = Date.now();
  let n = 0;
  let stopped = false;
  const one = (ip: string) =>
    new Promise<boolean>((resolve) => {
      const req = request(
        { host: '127.0.0.1', port: options.port, path: options.path, agent, headers: { host: options.host, 'user-agent': CHROME, 'x-forwarded-for': ip } },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 302) {
              last = Date.now();
              answered.set(ip, last);
            }
            resolve(true);
          });
          res.on('error', () => resolve(false));
        },
      );
      req.on('error', () => resolve(false));
      req.end();
    });
  const loop = async () => {
    while (!stopped && n < max) {
      const k = n++;
      const ip = `${options.ipPrefix}.${(k >> 8) & 255}.${k & 255}`;
      sent.add(ip);
      if (!(await one(ip))) return;
    }
  };
  const done = Promise.all(Array.from({ length: connections }, loop)).then(() => agent.destroy());
  return {
    sent,
    answered,
    lastAnswerAt: () => last,
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

export interface WriteLock {
  release(): Promise<void>;
}

/**
 * A slow database: holds the write lock from another connection until `release()` (`pgSchema`, or
 * `?schema=` in the URL, names the PostgreSQL schema). SQLite:
 * `BEGIN IMMEDIATE` (readers go on, writers wait); PostgreSQL: `LOCK TABLE events IN EXCLUSIVE
 * MODE` in an open transaction (reads of events go on, the click batch's first insert waits).
 */
export async function holdWriteLock(url: string, pgSchema?: string): Promise<WriteLock> {
  if (TEST_ENGINE === 'postgres') {
    const split = splitPgSchema(url);
    const plain = split.url;
    const schema = pgSchema ?? split.schema;
    const client = new pg.Client({ connectionString: plain, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
    await client.connect();
    await client.query('begin');
    await client.query('lock table events in exclusive mode');
    return {
      release: async () => {
        await client.query('rollback');
        await client.end();
      },
    };
  }
  const handle = new SQLite(sqliteFileFromUrl(url));
  handle.exec('begin immediate');
  return {
    release: async () => {
      handle.exec('rollback');
      handle.close();
    },
  };
}

/** Client IPs of the click events of a link, as stored (one entry per row). */
export async function storedClickIps(database: Awaited<ReturnType<typeof openDatabase>>, linkId: string): Promise<string[]> {
  const rows = await database.db.selectFrom('events').select('ip').where('link_id', '=', linkId).where('kind', '=', 'click').execute();
  return rows.map((r) => String(r.ip));
}

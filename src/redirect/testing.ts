/**
 * Test helpers for the redirect: insert links and domains straight into the database (no
 * dependency on the links API), and make real HTTP requests with any Host header, since
 * `app.inject()` bypasses the raw server that answers short-link hosts.
 *
 * @example
 * const link = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'abc', url: 'https://example.com' });
 * const res = await hit(base, '/abc', { host: 'go.test' });
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import type { Insertable, Kysely } from 'kysely';
import type { Database, DomainsTable, LinksTable } from '../db/tables.js';
import { newId } from '../ids.js';
import type { Change } from '../db/change-bus.js';
import { linkRow } from '../test-support/link-row.js';

export type LinkFields = Partial<Insertable<LinksTable>> & { domain: string; key: string; url: string };

/** Inserts a link with every NOT NULL column filled; returns the row as inserted. */
export async function insertLink(db: Kysely<Database>, workspaceId: string, fields: LinkFields): Promise<Insertable<LinksTable>> {
  const now = Date.now();
  const row = linkRow({ id: newId('link'), workspace_id: workspaceId, ...fields }, now);
  await db.insertInto('links').values(row).execute();
  return row;
}

/** Inserts a domain row. */
export async function insertDomain(
  db: Kysely<Database>,
  workspaceId: string,
  fields: Partial<Insertable<DomainsTable>> & { slug: string },
): Promise<void> {
  const now = Date.now();
  await db
    .insertInto('domains')
    .values({ id: newId('dom'), workspace_id: workspaceId, verified: 1, primary: 0, archived: 0, created_at: now, updated_at: now, ...fields })
    .execute();
}

export interface HitResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  location: string | undefined;
  cookies: string[];
}

export interface HitOptions {
  host: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One HTTP request to `base` (http://127.0.0.1:port) with the given Host header; no redirects followed. */
export function hit(base: string, path: string, options: HitOptions): Promise<HitResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? 'GET',
        agent: false,
        headers: {
          host: options.host,
          'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
          ...(options.body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(options.body)) } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            location: res.headers.location,
            cookies: res.headers['set-cookie'] ?? [],
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Tells the app's cache that a link changed (what the links service does on every write). */
export function linkChanged(bus: { publish(change: Change): void }, domain: string, key: string): void {
  bus.publish({ type: 'link', domain, key });
}

export interface RawHitResponse {
  status: number;
  /** The response head (status line and headers) exactly as it came off the socket. */
  head: Buffer;
  /** The bytes of the `Location` header's value, or null when there is none. */
  location: Buffer | null;
  body: Buffer;
}

/**
 * One request over a plain socket, so the test sees the bytes the server wrote: node's HTTP client
 * would decode a header as Latin-1 and hide what was actually sent. `path` must be ASCII (node's
 * server refuses anything else in the request line).
 */
export function rawHit(base: string, path: string, options: { host: string; headers?: Record<string, string> }): Promise<RawHitResponse> {
  const url = new URL(base);
  const lines = [`GET ${path} HTTP/1.1`, `Host: ${options.host}`, 'Connection: close'];
  for (const [name, value] of Object.entries({ 'User-Agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36', ...options.headers })) {
    lines.push(`${name}: ${value}`);
  }
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no response head: ${JSON.stringify(all.toString('latin1').slice(0, 200))}`));
      const head = all.subarray(0, end);
      let location: Buffer | null = null;
      for (const line of splitLines(head)) {
        const colon = line.indexOf(':');
        if (colon > 0 && line.subarray(0, colon).toString('latin1').toLowerCase() === 'location') location = trimSpaces(line.subarray(colon + 1));
      }
      resolve({ status: Number(head.subarray(9, 12).toString('latin1')), head, location, body: all.subarray(end + 4) });
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

function splitLines(head: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = head.indexOf('\r\n'); i >= 0; i = head.indexOf('\r\n', start)) {
    out.push(head.subarray(start, i));
    start = i + 2;
  }
  out.push(head.subarray(start));
  return out;
}

function trimSpaces(value: Buffer): Buffer {
  let a = 0;
  let b = value.length;
  while (a < b && (value[a] === 0x20 || value[a] === 0x09)) a++;
  while (b > a && (value[b - 1] === 0x20 || value[b - 1] === 0x09)) b--;
  return value.subarray(a, b);
}

/** The directives of a Content-Security-Policy by name (`style-src` → `'sha256-…'`). */
export function cspDirectives(csp: string): Map<string, string> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values.join(' ')]));
}

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

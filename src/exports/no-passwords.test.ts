/**
 * No export carries a link's password: every export route and format (links CSV, events CSV and
 * NDJSON of clicks, leads and sales, analytics CSV of every grouping), through the API with a key,
 * through the dashboard's downloads as owner, member and viewer, and through the CLI. The links
 * have a known password; each body must hold the link (so the check is not vacuous) and never the
 * password, nor a `password` column or field. The API's own link answers keep the field, as the
 * published API has it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { insertClick, readLink } from '../test-support/conversions.js';
import { GROUP_BYS } from '../analytics/schema.js';
import { runExport } from '../cli/export.js';
import { addUser, logIn, slugOf, type Browser } from '../dashboard/testing.js';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}-Secret`;

let t: TestApp;
let slug: string;
let folderId: string;
const browsers: Record<'owner' | 'member' | 'viewer', Browser> = {} as never;

before(async () => {
  t = await createTestApp();
  slug = await slugOf(t);
  const post = async (url: string, payload: object) => {
    const res = await t.inject({ method: 'POST', url, payload });
    assert.ok(res.statusCode < 300, `${url}: ${res.body}`);
    return res.json();
  };
  folderId = (await post('/folders', { name: 'Private' })).id;
  const open = await post('/links', { url: 'https://example.com/a', key: 'locked-a', password: PASSWORD, trackConversion: true });
  await post('/links', { url: 'https://example.com/b', key: 'locked-b', password: PASSWORD, folderId });
  await post('/links', { url: 'https://example.com/c', key: 'locked-c', password: PASSWORD, archived: true });

  const click = await insertClick(t, await readLink(t, open.id));
  await post('/track/lead', { clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'cus-1', mode: 'wait' });
  await post('/track/sale', { customerExternalId: 'cus-1', amount: 1500, eventName: 'Purchase' });

  for (const role of ['owner', 'member', 'viewer'] as const) browsers[role] = await logIn(t, await addUser(t, role));
});
after(() => t.close());

/** The exports, as paths after `/` (API) or `/dashboard/w/<slug>/` (dashboard); `holds`: a key the body must contain. */
const LINK_EXPORTS = [
  { path: 'links/export', holds: 'locked-a' },
  { path: 'links/export?folderId=FOLDER', holds: 'locked-b' },
  { path: 'links/export?showArchived=true', holds: 'locked-c' },
];
const EVENT_EXPORTS = ['clicks', 'leads', 'sales'].flatMap((event) =>
  ['csv', 'ndjson'].map((format) => ({ path: `events/export?event=${event}&interval=all&format=${format}`, holds: 'locked-a' })),
);
const ANALYTICS_EXPORTS = GROUP_BYS.map((groupBy) => ({ path: `analytics/export?groupBy=${groupBy}&interval=all&event=composite`, holds: groupBy === 'top_links' ? 'locked-a' : undefined }));
const ALL = [...LINK_EXPORTS, ...EVENT_EXPORTS, ...ANALYTICS_EXPORTS];

/** The body holds the link and no trace of its password. */
function assertNoPassword(label: string, body: string, contentType: string, holds?: string) {
  if (holds) assert.ok(body.includes(holds), `${label}: the export holds the link ${holds}`);
  assert.ok(!body.includes(PASSWORD), `${label}: the link's password is in the export`);
  if (contentType.startsWith('text/csv')) {
    const [header] = parse(body, { to: 1 }) as string[][];
    assert.ok(header && !header.includes('password'), `${label}: a password column`);
  } else {
    assert.match(contentType, /application\/x-ndjson/);
    for (const line of body.split('\n').filter(Boolean)) {
      const event = JSON.parse(line) as { link: Record<string, unknown> };
      assert.ok(event.link.id && !('password' in event.link), `${label}: the link's password field`);
    }
  }
}

test('the API exports (API key): no password in any route, format or grouping', async () => {
  for (const e of ALL) {
    const url = `/${e.path.replace('FOLDER', folderId)}`;
    const res = await t.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
    assertNoPassword(`API ${url}`, res.body, String(res.headers['content-type']), e.holds);
  }
});

test("the dashboard's downloads: no password for the owner, a member or a viewer", async () => {
  for (const role of ['owner', 'member', 'viewer'] as const) {
    for (const e of ALL) {
      const url = `/dashboard/w/${slug}/${e.path.replace('FOLDER', folderId)}`;
      const res = await browsers[role].get(url);
      assert.equal(res.statusCode, 200, `${role} ${url}: ${res.body.slice(0, 200)}`);
      assertNoPassword(`${role} ${url}`, res.body, String(res.headers['content-type']), e.holds);
    }
  }
});

test('the CLI exports: no password', async () => {
  const run = async (argv: string[]) => {
    const chunks: Buffer[] = [];
    const stdout = new Writable({ write: (chunk, _enc, done) => (chunks.push(Buffer.from(chunk)), done()) });
    assert.equal(await runExport({ argv: [...argv, '-w', slug], config: t.config, database: t.database, stdout }), 0);
    return Buffer.concat(chunks).toString('utf8');
  };
  assertNoPassword('cli links', await run(['links']), 'text/csv', 'locked-a');
  for (const event of ['clicks', 'leads', 'sales']) {
    assertNoPassword(`cli ${event} csv`, await run(['events', '--event', event, '--query', 'interval=all']), 'text/csv', 'locked-a');
    assertNoPassword(`cli ${event} ndjson`, await run(['events', '--event', event, '--format', 'ndjson', '--query', 'interval=all']), 'application/x-ndjson', 'locked-a');
  }
  assertNoPassword('cli top_links', await run(['analytics', '--query', 'groupBy=top_links&interval=all']), 'text/csv', 'locked-a');
});

test("the API's link answers keep the password, as the published API does", async () => {
  const links = (await t.inject({ method: 'GET', url: '/links' })).json() as { key: string; password: string | null }[];
  assert.equal(links.find((l) => l.key === 'locked-a')?.password, PASSWORD);
});

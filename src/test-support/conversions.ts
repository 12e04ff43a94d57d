/**
 * Test fixtures for conversion tracking: links and clicks written straight to the database, so
 * the track endpoints can be tested without the links API or the redirect.
 *
 * @example
 * const link = await insertLink(t);
 * const click = await insertClick(t, link);
 * await dub.track.lead({ clickId: click.click_id, eventName: 'Sign up', customerExternalId: 'u1' });
 */
import { randomBytes } from 'node:crypto';
import type { Insertable, Selectable } from 'kysely';
import type { EventsTable, LinksTable } from '../db/tables.js';
import { newId } from '../ids.js';
import { newClickIdAt } from '../visitors/click-id.js';
import type { StoredEvent } from '../events/index.js';
import type { TestApp } from './harness.js';

export type FixtureLink = Selectable<LinksTable>;

/** Inserts a link of the workspace (default: the harness's) and returns its row. */
export async function insertLink(t: TestApp, overrides: Partial<Insertable<LinksTable>> = {}): Promise<FixtureLink> {
  const now = Date.now();
  const key = overrides.key ?? `k${randomBytes(4).toString('hex')}`;
  const domain = overrides.domain ?? 'wm.localhost:3999';
  const row: Insertable<LinksTable> = {
    id: newId('link', now),
    workspace_id: t.workspaceId,
    domain,
    key,
    key_lower: key.toLowerCase(),
    url: 'https://shop.example.com/pricing',
    short_link: `http://${domain}/${key}`,
    track_conversion: 1,
    created_at: now,
    updated_at: now,
    ...overrides,
  } as Insertable<LinksTable>;
  await t.ctx.database.db.insertInto('links').values(row).execute();
  return (await t.ctx.database.db.selectFrom('links').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow()) as FixtureLink;
}

/** Appends a click on the link through the event writer (as the redirect's flush does). */
export async function insertClick(t: TestApp, link: FixtureLink, overrides: Partial<Insertable<EventsTable>> = {}): Promise<StoredEvent> {
  // A click id spells its click's time, which the attribution models read as the touch's time.
  const timestamp = Number(overrides.timestamp ?? Date.now() - 1000);
  const row: StoredEvent = {
    workspace_id: link.workspace_id,
    timestamp,
    id: overrides.click_id ?? newClickIdAt(timestamp),
    kind: 'click',
    click_id: overrides.click_id ?? '',
    link_id: link.id,
    domain: link.domain,
    key: link.key,
    url: link.url,
    country: 'DE',
    city: 'Berlin',
    region: 'DE-BE',
    continent: 'EU',
    device: 'Desktop',
    browser: 'Firefox',
    os: 'Linux',
    referer: '(direct)',
    referer_url: '(direct)',
    trigger: 'link',
    ip: '203.0.113.9',
    ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
    utm_source: 'newsletter',
    ...overrides,
  } as StoredEvent;
  row.click_id = row.id;
  await t.ctx.events.append([row]);
  return row;
}

/** Reads a link row back (counters). */
export async function readLink(t: TestApp, linkId: string): Promise<FixtureLink> {
  return (await t.ctx.database.db.selectFrom('links').selectAll().where('id', '=', linkId).executeTakeFirstOrThrow()) as FixtureLink;
}

/** The lead and sale events of a workspace, oldest first. */
export async function conversionEvents(t: TestApp, workspaceId = t.workspaceId) {
  return t.ctx.database.db
    .selectFrom('events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('kind', 'in', ['lead', 'sale'])
    .orderBy('timestamp')
    .orderBy('id')
    .execute();
}

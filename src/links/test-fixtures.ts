/**
 * Test fixtures for the links tests: tags, folders and domains written straight to the database,
 * so the links API is tested without depending on the tags, folders and domains APIs.
 *
 * @example
 * const tag = await addTag(t, 'News');
 * await dub.links.create({ url: 'https://example.com', tagIds: [tag] });
 */
import { newId } from '../ids.js';
import type { TestApp } from '../test-support/harness.js';

/** Inserts a tag; returns its id. */
export async function addTag(t: TestApp, name: string, options: { color?: string; workspaceId?: string } = {}): Promise<string> {
  const id = newId('tag');
  const now = Date.now();
  await t.ctx.database.db
    .insertInto('tags')
    .values({ id, workspace_id: options.workspaceId ?? t.workspaceId, name, name_key: name.toLowerCase(), color: options.color ?? 'blue', created_at: now, updated_at: now })
    .execute();
  return id;
}

/** Inserts a folder; returns its id. */
export async function addFolder(t: TestApp, name: string, workspaceId = t.workspaceId): Promise<string> {
  const id = newId('fold');
  const now = Date.now();
  await t.ctx.database.db
    .insertInto('folders')
    .values({ id, workspace_id: workspaceId, name, name_key: name.toLowerCase(), description: null, type: 'default', access_level: 'write', created_at: now, updated_at: now })
    .execute();
  return id;
}

/** Inserts a domain of the workspace. */
export async function addDomain(t: TestApp, slug: string, options: { primary?: boolean; workspaceId?: string } = {}): Promise<void> {
  const now = Date.now();
  await t.ctx.database.db
    .insertInto('domains')
    .values({
      id: newId('dom'),
      workspace_id: options.workspaceId ?? t.workspaceId,
      slug,
      verified: 1,
      primary: options.primary ? 1 : 0,
      archived: 0,
      placeholder: null,
      expired_url: null,
      not_found_url: null,
      logo: null,
      asset_links: null,
      apple_app_site_association: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

/** `linksUsage` and `totalLinks` of a workspace, read from its row. */
export async function linkCounters(t: TestApp, workspaceId = t.workspaceId): Promise<{ linksUsage: number; totalLinks: number }> {
  const row = await t.ctx.database.db.selectFrom('workspaces').select(['links_usage', 'total_links']).where('id', '=', workspaceId).executeTakeFirstOrThrow();
  return { linksUsage: Number(row.links_usage), totalLinks: Number(row.total_links) };
}

/** Records every change announced on the bus. */
export function recordChanges(t: TestApp): { changes: { type: string; domain: string; key?: string }[]; stop(): void } {
  const changes: { type: string; domain: string; key?: string }[] = [];
  const stop = t.ctx.bus.subscribe((c) => changes.push({ ...c }));
  return { changes, stop };
}

/**
 * Settings → UTM templates and the link builder's picker, through the dashboard's routes: owners
 * and members save and delete, viewers only read (403 on the server), another workspace's template
 * is neither listed nor applied, refusals are shown at the form, and `?utmTemplate=<id>` (the
 * picker without JavaScript) fills the builder's UTM fields.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'parse5';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { signInEveryRole, type Browser } from './testing.js';

let t: TestApp;
let slug: string;
let owner: Browser;
let member: Browser;
let viewer: Browser;

before(async () => {
  t = await createTestApp();
  ({ slug, owner, member, viewer } = await signInEveryRole(t));
});
after(() => t.close());

const settings = () => `/dashboard/w/${slug}/settings/utm`;
const listed = async () => (await t.modules.utmTemplates.service.list(t.workspaceId)).map((x) => x.name);

/** The value attribute of the builder's input named `name` (parsed as a browser would). */
function inputValue(html: string, name: string): string | undefined {
  const walk = (node: any): string | undefined => {
    if (node.tagName === 'input' && node.attrs.some((a: any) => a.name === 'name' && a.value === name)) return node.attrs.find((a: any) => a.name === 'value')?.value ?? '';
    for (const child of node.childNodes ?? []) {
      const found = walk(child.content ?? child);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return walk(parse(html));
}

test('members and owners save and delete templates; viewers see them and are refused (403)', async () => {
  assert.equal((await member.get(settings())).statusCode, 200);
  const saved = await member.post(settings(), { name: 'Newsletter', utm_source: 'newsletter', utm_medium: 'email' });
  assert.equal(saved.statusCode, 303);
  assert.equal(saved.headers.location, settings());
  await owner.get(settings());
  assert.equal((await owner.post(settings(), { name: 'Ads', utm_source: 'google', utm_medium: 'cpc' })).statusCode, 303);
  assert.deepEqual(await listed(), ['Ads', 'Newsletter']);

  const page = await viewer.get(settings());
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<th scope="row">Newsletter<\/th>/);
  assert.match(page.body, /<td>newsletter<\/td>/);
  assert.doesNotMatch(page.body, /Save template|data-confirm/, 'no write controls for a viewer');
  assert.equal((await viewer.post(settings(), { name: 'Mine', utm_source: 'x' })).statusCode, 403);
  const id = (await t.modules.utmTemplates.service.list(t.workspaceId)).find((x) => x.name === 'Ads')!.id;
  assert.equal((await viewer.post(`${settings()}/${id}/delete`)).statusCode, 403);
  assert.deepEqual(await listed(), ['Ads', 'Newsletter'], 'nothing changed by the viewer');

  await member.get(settings());
  assert.match((await member.get(settings())).body, /data-confirm="Delete the UTM template “Ads”/);
  assert.equal((await member.post(`${settings()}/${id}/delete`)).statusCode, 303);
  assert.deepEqual(await listed(), ['Newsletter']);
});

test('a refused template is shown again with its message and what was typed', async () => {
  await owner.get(settings());
  const long = await owner.post(settings(), { name: 'Too long', utm_campaign: 'c'.repeat(191) });
  assert.equal(long.statusCode, 422);
  assert.match(long.body, /Campaign can be at most 190 characters/);
  assert.equal(inputValue(long.body, 'name'), 'Too long');
  const none = await owner.post(settings(), { name: 'Empty' });
  assert.equal(none.statusCode, 422);
  assert.match(none.body, /Fill at least one UTM value/);
  const dup = await owner.post(settings(), { name: 'NEWSLETTER', utm_source: 'x' });
  assert.equal(dup.statusCode, 409);
  assert.match(dup.body, /already exists/);
  assert.deepEqual(await listed(), ['Newsletter']);
});

test("the builder lists this workspace's templates only, and applies one by id, never another workspace's", async () => {
  const other = await t.addWorkspace();
  const foreign = await t.modules.utmTemplates.service.create(other.workspaceId, { name: 'Foreign', utm_source: 'foreign-source' }, null);
  const mine = (await t.modules.utmTemplates.service.list(t.workspaceId)).find((x) => x.name === 'Newsletter')!;
  const builder = `/dashboard/w/${slug}/links/new`;

  const empty = await member.get(builder);
  assert.equal(empty.statusCode, 200);
  assert.match(empty.body, new RegExp(`<option value="${mine.id}" data-utm_source="newsletter" data-utm_medium="email" data-utm_campaign="" data-utm_term="" data-utm_content="">Newsletter</option>`));
  assert.doesNotMatch(empty.body, /Foreign|foreign-source/);
  assert.match(empty.body, /<select name="utmTemplate" form="utm-template-form" data-utm-template="link-builder">/);
  assert.match(empty.body, /<form method="get" action="[^"]+\/links\/new" id="utm-template-form" hidden><\/form>/);

  const applied = await member.get(`${builder}?utmTemplate=${mine.id}`);
  assert.equal(applied.statusCode, 200);
  assert.equal(inputValue(applied.body, 'utm_source'), 'newsletter');
  assert.equal(inputValue(applied.body, 'utm_medium'), 'email');
  assert.equal(inputValue(applied.body, 'utm_campaign'), '');

  const refused = await member.get(`${builder}?utmTemplate=${foreign.id}`);
  assert.equal(refused.statusCode, 404);
  assert.match(refused.body, /That UTM template does not exist/);
  assert.equal(inputValue(refused.body, 'utm_source'), '', "another workspace's values are not applied");
  assert.doesNotMatch(refused.body, /foreign-source/);

  // On the edit page the template replaces the link's UTM values; saving writes them into the URL.
  const created = await t.inject({ method: 'POST', url: '/links', payload: { url: 'https://example.com/p?utm_source=old&utm_term=kept', key: 'tpl-edit' } });
  const link = created.json() as { id: string };
  const edit = `/dashboard/w/${slug}/links/${link.id}/edit`;
  const onEdit = await member.get(`${edit}?utmTemplate=${mine.id}`);
  assert.equal(inputValue(onEdit.body, 'utm_source'), 'newsletter');
  assert.equal(inputValue(onEdit.body, 'utm_term'), '', 'a value the template does not set is cleared');
  const viewed = await viewer.get(`${edit}?utmTemplate=${mine.id}`);
  assert.equal(viewed.statusCode, 303, 'a viewer is sent to the read-only page');
  assert.equal(viewed.headers.location, `/dashboard/w/${slug}/links/${link.id}`);
});

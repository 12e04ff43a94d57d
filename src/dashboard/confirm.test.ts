/**
 * Confirmation before anything is lost (layout.tsx `ConfirmDialog`, links.js): every button that
 * deletes, revokes or removes carries `data-confirm` naming the thing and what goes with it, and
 * every page with such a button has the dialog; the single-link delete of the edit page.
 * (The dialog itself opening before a delete is the browser test's: test/browser/guard.browser.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-support/harness.js';
import { addFolder, addTag } from '../links/test-fixtures.js';
import { newId } from '../ids.js';
import { addUser, apiLink, createLink, logIn, slugOf } from './testing.js';

/** Each `<button>` whose label deletes, revokes or removes, with its data-confirm (undecoded entities aside). */
function dangerousButtons(html: string): { label: string; confirm: string | undefined }[] {
  return [...html.matchAll(/<button([^>]*)>\s*([^<]*?)\s*<\/button>/g)]
    .filter((m) => /^(Delete|Revoke|Remove)\b/.test(m[2]!))
    .map((m) => ({ label: m[2]!, confirm: /data-confirm="([^"]*)"/.exec(m[1]!)?.[1]?.replaceAll('&#39;', "'").replaceAll('&amp;', '&') }));
}

test('every delete, revoke and remove button asks first, naming what is lost', async () => {
  const t = await createTestApp();
  try {
    const owner = await addUser(t, 'owner', t.workspaceId, 'Olive Owner');
    await addUser(t, 'member', t.workspaceId, 'Mo Member');
    const browser = await logIn(t, owner);
    const slug = await slugOf(t);
    const s = `/dashboard/w/${slug}/settings`;
    await addTag(t, 'spring-sale');
    await addFolder(t, 'Campaigns');
    const link = await createLink(t, { url: 'https://shop.example.com/a', key: 'doomed' });
    await t.ctx.workspaces.createKey(t.workspaceId, { name: 'Zapier key' });
    const now = Date.now();
    await t.database.db
      .insertInto('webhooks')
      .values({
        id: newId('wh', now), workspace_id: t.workspaceId, name: 'CRM hook', url: 'https://crm.example.com/hook', secret: 'whsec_test',
        triggers: '["link.created"]', link_scope: null, link_ids: '[]', folder_ids: '[]', disabled_at: null, consecutive_failures: 0, created_at: now, updated_at: now,
      })
      .execute();
    await t.modules.users.invitations.invite(t.workspaceId, { email: 'invitee@example.com', role: 'viewer' }, owner.id);

    const expected: [string, RegExp[]][] = [
      [`/dashboard/w/${slug}/links`, [/Delete the \{count\} selected links\?.*stop redirecting.*cannot be undone/]],
      [`/dashboard/w/${slug}/links/${link.id}/edit`, [new RegExp(`Delete https?://${link.domain}/doomed\\?.*stops redirecting.*0 clicks, 0 leads and 0 sales`)]],
      [`${s}/tags`, [/Delete the tag “spring-sale”\?.*taken off every link/]],
      [`${s}/folders`, [/Delete the folder “Campaigns”\?.*move out of any folder/]],
      [`${s}/keys`, [/Revoke the API key “Zapier key”.*401/]],
      [`${s}/webhooks`, [/Delete the webhook “CRM hook” \(https:\/\/crm\.example\.com\/hook\)\?.*delivery history/]],
      [`${s}/members`, [/Remove Mo Member \(u-\w+@example\.com\) from .*lose access/, /Remove Olive Owner/, /Revoke the invitation for invitee@example\.com\?/]],
    ];
    for (const [url, patterns] of expected) {
      const res = await browser.get(url);
      assert.equal(res.statusCode, 200, url);
      const buttons = dangerousButtons(res.body);
      assert.ok(buttons.length >= patterns.length, `${url}: the buttons are there (${JSON.stringify(buttons)})`);
      for (const b of buttons) assert.ok(b.confirm, `${url}: "${b.label}" asks for confirmation`);
      for (const p of patterns) assert.ok(buttons.some((b) => p.test(b.confirm!)), `${url}: a confirmation matches ${p}: ${JSON.stringify(buttons)}`);
      assert.match(res.body, /<dialog id="confirm"/, `${url}: the page has the dialog`);
    }
  } finally {
    await t.close();
  }
});

test('a single link is deleted from its edit page; viewers are refused', async () => {
  const t = await createTestApp();
  try {
    const slug = await slugOf(t);
    const keep = await createLink(t, { url: 'https://shop.example.com/keep', key: 'keep' });
    const gone = await createLink(t, { url: 'https://shop.example.com/gone', key: 'gone' });
    const viewer = await logIn(t, await addUser(t, 'viewer'));
    await viewer.get(`/dashboard/w/${slug}/links`);
    assert.equal((await viewer.post(`/dashboard/w/${slug}/links/${gone.id}/delete`)).statusCode, 403);
    await apiLink(t, gone.id);

    const owner = await logIn(t, await addUser(t, 'owner'));
    await owner.get(`/dashboard/w/${slug}/links/${gone.id}/edit`);
    const res = await owner.post(`/dashboard/w/${slug}/links/${gone.id}/delete`);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/dashboard/w/${slug}/links?done=delete&n=1`);
    assert.equal((await t.app.inject({ method: 'GET', url: `/links/${gone.id}`, headers: t.headers })).statusCode, 404);
    await apiLink(t, keep.id);
    const list = await owner.get(res.headers.location as string);
    assert.match(list.body, /1 link deleted\./);
    assert.doesNotMatch(list.body, /\/gone</);
    assert.equal((await owner.post(`/dashboard/w/${slug}/links/${gone.id}/delete`)).statusCode, 404, 'a second delete: not found');
  } finally {
    await t.close();
  }
});

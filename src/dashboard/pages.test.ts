/**
 * Dashboard pages on the engine under test: roles enforced on the server, invitations (expiry,
 * acceptance), other workspaces invisible, user values escaped, the links list.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-support/harness.js';
import { Browser, addUser, logIn, slugOf } from './testing.js';

const DAY = 24 * 60 * 60 * 1000;

async function createLink(t: Awaited<ReturnType<typeof createTestApp>>, body: Record<string, unknown>, headers = t.headers) {
  const res = await t.app.inject({ method: 'POST', url: '/links', headers, payload: body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { id: string };
}

test('viewers change nothing, members manage links but not members, owners manage members', async () => {
  const t = await createTestApp();
  try {
    const slug = await slugOf(t);
    const link = await createLink(t, { url: 'https://example.com/a' });
    const archive = `/dashboard/w/${slug}/links/${link.id}/archive`;
    const invite = `/dashboard/w/${slug}/settings/members/invite`;
    const viewer = await logIn(t, await addUser(t, 'viewer'));
    const member = await logIn(t, await addUser(t, 'member'));
    const owner = await logIn(t, await addUser(t, 'owner'));

    const viewerPage = await viewer.get(`/dashboard/w/${slug}/links`);
    assert.equal(viewerPage.statusCode, 200);
    assert.doesNotMatch(viewerPage.body, /Archive<\/button>/, 'no button a viewer could not use');
    // The server refuses what the page does not offer.
    assert.equal((await viewer.post(archive, { archived: 'true' })).statusCode, 403);
    assert.equal((await viewer.post(invite, { email: 'x@example.com', role: 'owner' })).statusCode, 403);
    assert.equal((await t.inject({ method: 'GET', url: `/links/${link.id}` })).json().archived, false);

    await member.get(`/dashboard/w/${slug}/links`);
    assert.equal((await member.post(archive, { archived: 'true' })).statusCode, 303);
    assert.equal((await t.inject({ method: 'GET', url: `/links/${link.id}` })).json().archived, true, 'archived through the links service');
    await member.get(`/dashboard/w/${slug}/settings/members`);
    assert.equal((await member.post(invite, { email: 'x@example.com', role: 'member' })).statusCode, 403);

    await owner.get(`/dashboard/w/${slug}/settings/members`);
    const created = await owner.post(invite, { email: 'x@example.com', role: 'member' });
    assert.equal(created.statusCode, 201);
    assert.match(created.body, /http:\/\/localhost:3999\/dashboard\/invite\?token=[\w-]{43}/);
  } finally {
    await t.close();
  }
});

test('owners change roles and remove members; the last owner stays', async () => {
  const t = await createTestApp();
  try {
    const slug = await slugOf(t);
    const ownerUser = await addUser(t, 'owner');
    const memberUser = await addUser(t, 'member');
    const owner = await logIn(t, ownerUser);
    const base = `/dashboard/w/${slug}/settings/members`;
    await owner.get(base);
    assert.equal((await owner.post(`${base}/${memberUser.id}/role`, { role: 'viewer' })).statusCode, 303);
    assert.equal(await t.modules.users.service.roleOf(memberUser.id, t.workspaceId), 'viewer');
    assert.equal((await owner.post(`${base}/${memberUser.id}/role`, { role: 'admin' })).statusCode, 422);
    assert.equal((await owner.post(`${base}/${ownerUser.id}/role`, { role: 'member' })).statusCode, 409);
    assert.equal((await owner.post(`${base}/${ownerUser.id}/remove`)).statusCode, 409);
    assert.equal((await owner.post(`${base}/${memberUser.id}/remove`)).statusCode, 303);
    assert.equal(await t.modules.users.service.roleOf(memberUser.id, t.workspaceId), undefined);
    assert.equal((await owner.post(`${base}/${memberUser.id}/remove`)).statusCode, 404);
  } finally {
    await t.close();
  }
});

test('an invitation link creates the account and logs it in, works once, and expires (410)', async () => {
  let clock = Date.UTC(2026, 0, 1);
  const t = await createTestApp({ now: () => clock });
  try {
    const slug = await slugOf(t);
    const owner = await logIn(t, await addUser(t, 'owner'));
    await owner.get(`/dashboard/w/${slug}/settings/members`);
    const link = (body: string) => /\/dashboard\/invite\?token=[\w-]+/.exec(body)![0];
    const first = link((await owner.post(`/dashboard/w/${slug}/settings/members/invite`, { email: 'Bo@Example.com', role: 'viewer' })).body);
    const second = link((await owner.post(`/dashboard/w/${slug}/settings/members/invite`, { email: 'cy@example.com', role: 'member' })).body);
    assert.equal((await t.database.db.selectFrom('invitations').select('token_hash').execute()).some((r) => first.includes(r.token_hash)), false);

    const bo = new Browser(t);
    const page = await bo.get(first);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /invited as <strong>viewer<\/strong>/);
    const token = new URL(first, 'http://x').searchParams.get('token')!;
    const weak = await bo.post('/dashboard/invite', { token, name: 'Bo', password: 'short' });
    assert.equal(weak.statusCode, 422);
    const joined = await bo.post('/dashboard/invite', { token, name: 'Bo', password: 'correct horse battery' });
    assert.equal(joined.statusCode, 303);
    assert.equal(joined.headers.location, `/dashboard/w/${slug}/links`);
    assert.equal((await bo.get(joined.headers.location!)).statusCode, 200, 'logged in');
    const user = (await t.modules.users.service.findByEmail('bo@example.com'))!;
    assert.equal(await t.modules.users.service.roleOf(user.id, t.workspaceId), 'viewer');
    assert.equal((await new Browser(t).get(first)).statusCode, 404, 'used once');

    clock += 7 * DAY + 1;
    const late = await new Browser(t).get(second);
    assert.equal(late.statusCode, 410);
    assert.match(late.body, /invite_expired/);
  } finally {
    await t.close();
  }
});

test('an invitation for an existing account adds the membership once its owner logs in', async () => {
  const t = await createTestApp();
  try {
    const other = await t.addWorkspace();
    const otherSlug = await slugOf(t, other.workspaceId);
    const owner = await logIn(t, await addUser(t, 'owner', other.workspaceId));
    const ann = await addUser(t, 'member');
    await owner.get(`/dashboard/w/${otherSlug}/settings/members`);
    const res = await owner.post(`/dashboard/w/${otherSlug}/settings/members/invite`, { email: ann.email.toUpperCase(), role: 'member' });
    const url = /\/dashboard\/invite\?token=[\w-]+/.exec(res.body)![0];
    const token = new URL(url, 'http://x').searchParams.get('token')!;

    const anonymous = new Browser(t);
    assert.match((await anonymous.get(url)).body, /log in<\/a> to accept/);
    const someoneElse = await logIn(t, await addUser(t, 'member'));
    await someoneElse.get(url);
    assert.equal((await someoneElse.post('/dashboard/invite', { token })).statusCode, 403);

    const browser = await logIn(t, ann);
    await browser.get(url);
    assert.equal((await browser.post('/dashboard/invite', { token })).statusCode, 303);
    assert.equal(await t.modules.users.service.roleOf(ann.id, other.workspaceId), 'member');

    // An invitation accepted by someone who is a member already never changes their role.
    const second = await owner.post(`/dashboard/w/${otherSlug}/settings/members/invite`, { email: 'late@example.com', role: 'viewer' });
    const lateToken = /invite\?token=([\w-]+)/.exec(second.body)![1]!;
    const late = await addUser(t, 'member');
    await t.database.db.updateTable('users').set({ email: 'late@example.com', email_key: 'late@example.com' }).where('id', '=', late.id).execute();
    await t.modules.users.service.addMembership(late.id, other.workspaceId, 'owner');
    const lateBrowser = await logIn(t, { email: 'late@example.com', password: late.password });
    await lateBrowser.get(`/dashboard/invite?token=${lateToken}`);
    assert.equal((await lateBrowser.post('/dashboard/invite', { token: lateToken })).statusCode, 303);
    assert.equal(await t.modules.users.service.roleOf(late.id, other.workspaceId), 'owner');
    // The switcher now lists both workspaces.
    const page = await browser.get(`/dashboard/w/${otherSlug}/links`);
    assert.match(page.body, new RegExp(`href="/dashboard/w/${await slugOf(t)}/links"`));
  } finally {
    await t.close();
  }
});

test("other workspaces' pages and data answer 404 through the dashboard", async () => {
  const t = await createTestApp();
  try {
    const other = await t.addWorkspace();
    const otherSlug = await slugOf(t, other.workspaceId);
    const theirLink = await createLink(t, { url: 'https://example.com/theirs' }, other.headers);
    const browser = await logIn(t, await addUser(t, 'owner'));
    const slug = await slugOf(t);
    assert.equal((await browser.get(`/dashboard/w/${otherSlug}/links`)).statusCode, 404);
    assert.equal((await browser.get(`/dashboard/w/${otherSlug}/settings/members`)).statusCode, 404);
    assert.equal((await browser.get('/dashboard/w/no-such-workspace/links')).statusCode, 404);
    const unknown = await browser.get(`/dashboard/w/${slug}/no-such-page`);
    assert.equal(unknown.statusCode, 404);
    assert.match(String(unknown.headers['content-type']), /^text\/html/);
    await browser.get(`/dashboard/w/${slug}/links`);
    assert.equal((await browser.post(`/dashboard/w/${otherSlug}/links/${theirLink.id}/archive`, { archived: 'true' })).statusCode, 404);
    // Their link named through our workspace: the links service scopes it away.
    assert.equal((await browser.post(`/dashboard/w/${slug}/links/${theirLink.id}/archive`, { archived: 'true' })).statusCode, 404);
    assert.equal((await t.inject({ method: 'GET', url: `/links/${theirLink.id}`, headers: other.headers })).json().archived, false);
    const page = await browser.get(`/dashboard/w/${slug}/links`);
    assert.doesNotMatch(page.body, /theirs/);
  } finally {
    await t.close();
  }
});

test('values people typed are escaped on every page', async () => {
  const t = await createTestApp();
  try {
    const evil = '<script>alert(1)</script>"\'&';
    await t.app.inject({ method: 'PATCH', url: `/workspaces/${t.workspaceId}`, headers: t.headers, payload: { name: `WS ${evil}` } });
    await createLink(t, { url: 'https://example.com/?q="><img/src=x/onerror=alert(1)>', title: `T ${evil}` });
    const owner = await addUser(t, 'owner', t.workspaceId, `Ann ${evil}`);
    const browser = await logIn(t, owner);
    const slug = await slugOf(t);
    for (const path of [`/dashboard/w/${slug}/links`, `/dashboard/w/${slug}/settings/members`, '/dashboard/account']) {
      const res = await browser.get(path);
      assert.equal(res.statusCode, 200, path);
      // Outside attribute values (a quoted value is text: the confirmation's data-confirm names the member as typed).
      assert.doesNotMatch(res.body.replace(/="[^"]*"/g, '=""'), /<script>alert|<img/, path);
      assert.match(res.body, /Ann &lt;script>alert\(1\)&lt;\/script>&#34;&#39;&amp;/, path);
    }
    const links = await browser.get(`/dashboard/w/${slug}/links`);
    assert.match(links.body, /T &lt;script>/);
    // Search text comes back inside a double-quoted attribute whose quote is escaped: the rest is
    // attribute text, never markup (HTML does not parse tags inside a quoted value).
    const search = await browser.get(`/dashboard/w/${slug}/links?search=${encodeURIComponent('"><script>x</script>')}`);
    assert.match(search.body, /<input type="search" name="search" value="&#34;><script>x<\/script>" maxlength/);
    assert.equal(search.body.match(/<script/g)!.length, 4, 'htmx, links.js, chart.js and the text inside the attribute, nothing else (uPlot only on chart pages)');
  } finally {
    await t.close();
  }
});

test('the links page lists the workspace links newest first, 50 a page by cursor, with search', async () => {
  let clock = Date.UTC(2026, 0, 1);
  const t = await createTestApp({ now: () => (clock += 1000) });
  try {
    const ids: string[] = [];
    for (let i = 0; i < 101; i++) ids.push((await createLink(t, { url: `https://example.com/${i}`, key: `k${String(i).padStart(3, '0')}` })).id);
    const browser = await logIn(t, await addUser(t, 'viewer'));
    const slug = await slugOf(t);
    const rows = (body: string) => [...body.matchAll(/localhost:3999\/(k\d{3})</g)].map((m) => m[1]);
    const href = (body: string, rel: string) => {
      const m = new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(body);
      return m ? m[1]!.replaceAll('&amp;', '&') : undefined;
    };
    const first = await browser.get(`/dashboard/w/${slug}/links`);
    assert.equal(rows(first.body).length, 50);
    assert.deepEqual(rows(first.body).slice(0, 2), ['k100', 'k099'], 'newest first');
    assert.equal(href(first.body, 'prev'), undefined);
    const second = await browser.get(href(first.body, 'next')!);
    assert.deepEqual([rows(second.body)[0], rows(second.body).at(-1)], ['k050', 'k001']);
    const third = await browser.get(href(second.body, 'next')!);
    assert.deepEqual(rows(third.body), ['k000']);
    assert.equal(href(third.body, 'next'), undefined);
    // Back from the last page: the same second page.
    const back = await browser.get(href(third.body, 'prev')!);
    assert.deepEqual(rows(back.body), rows(second.body));
    const top = await browser.get(href(back.body, 'prev')!);
    assert.deepEqual(rows(top.body), rows(first.body));
    assert.equal(href(top.body, 'prev'), undefined);

    const found = await browser.get(`/dashboard/w/${slug}/links?search=k007`);
    assert.deepEqual(rows(found.body), ['k007']);
    assert.equal((await browser.get(`/dashboard/w/${slug}/links?after=x'--`)).statusCode, 422);
    assert.equal(ids.length, 101);
  } finally {
    await t.close();
  }
});

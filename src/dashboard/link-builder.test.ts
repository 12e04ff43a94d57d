/**
 * The link builder (routes/link-builder.tsx) on the engine under test: what the form creates is
 * what the API then returns, refusals land at their field with the form as typed, the key
 * availability fragment, edits, roles on the server and other workspaces' links.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { addDomain, addFolder, addTag } from '../links/test-fixtures.js';
import { addUser, apiLink, createdId, createLink, logIn, slugOf } from './testing.js';

/** The message printed at a field (`<p class="error" id="err-<field>">`). */
function fieldError(body: string, field: string): string | undefined {
  return new RegExp(`<p class="error" id="err-${field}" role="alert">([^<]*)</p>`).exec(body)?.[1];
}

test('geo rows: a country typed by name is saved as its ISO code; a typo is refused, not saved as a rule that never matches', async () => {
  const t = await createTestApp();
  try {
    const browser = await logIn(t, await addUser(t, 'member'));
    const base = `/dashboard/w/${await slugOf(t)}/links`;
    const form = await browser.get(`${base}/new`);
    assert.match(form.body, /<datalist id="countries">.*<option value="DE">Germany<\/option>/s, 'the picker lists countries by name');
    assert.match(form.body, /name="geo_country_0"[^>]*list="countries"/);
    const refused = await browser.post(`${base}/new`, { url: 'https://shop.example.com/', key: 'geo-typo', geo_country_0: 'Germny', geo_url_0: 'https://shop.example.com/de' });
    assert.equal(refused.statusCode, 422);
    assert.match(fieldError(refused.body, 'geo') ?? '', /“Germny” is not a country/);
    assert.match(refused.body, /name="geo_country_0" value="Germny"/, 'the form as typed');
    const links = (await t.app.inject({ method: 'GET', url: '/links', headers: t.headers })).json() as unknown[];
    assert.equal(links.length, 0, 'nothing saved');

    const res = await browser.post(`${base}/new`, { url: 'https://shop.example.com/', key: 'geo-named', geo_country_0: 'Germany', geo_url_0: 'https://shop.example.com/de' });
    assert.equal(res.statusCode, 303, res.body);
    const id = createdId(res.headers.location as string);
    assert.deepEqual((await apiLink(t, id)).geo, { DE: 'https://shop.example.com/de' });
    const edit = await browser.get(`${base}/${id}/edit`);
    assert.match(edit.body, /name="geo_country_0" value="DE"/);
    assert.match(edit.body, /class="hint country-name">\u{1F1E9}\u{1F1EA} Germany</u, 'the row names its country');
  } finally {
    await t.close();
  }
});

test('a link built with UTM, tags, folder, expiry, password, devices, geo and variants is the link the API returns', async () => {
  const t = await createTestApp();
  try {
    const [news, spring] = [await addTag(t, 'news'), await addTag(t, 'spring')];
    const folder = await addFolder(t, 'Campaigns');
    await addDomain(t, 'go.example.com');
    const browser = await logIn(t, await addUser(t, 'member'));
    const base = `/dashboard/w/${await slugOf(t)}/links`;
    const form = await browser.get(`${base}/new`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<form method="post" action="[^"]+\/links\/new" class="builder"/);
    assert.match(form.body, /<option value="go.example.com"/);

    const res = await browser.post(`${base}/new`, {
      url: 'https://shop.example.com/spring?ref=x',
      domain: 'go.example.com',
      key: 'Spring-Sale',
      utm_source: 'newsletter',
      utm_medium: 'email',
      utm_campaign: 'spring 2030',
      [`tag_${news}`]: 'on',
      [`tag_${spring}`]: 'on',
      folderId: folder,
      expiresAt: '2030-06-01T12:30',
      expiredUrl: 'https://shop.example.com/over',
      password: 'open sesame',
      ios: 'https://apps.apple.com/app/x',
      android: 'https://play.google.com/store/apps/x',
      geo_country_0: 'de',
      geo_url_0: 'https://shop.example.com/de',
      geo_country_1: 'FR',
      geo_url_1: 'https://shop.example.com/fr',
      geo_country_2: '',
      geo_url_2: '',
      trackConversion: 'on',
      variant_url_0: 'https://shop.example.com/a',
      variant_percentage_0: '60',
      variant_url_1: 'https://shop.example.com/b',
      variant_percentage_1: '40',
      title: 'Spring sale',
      description: 'Everything must go',
      image: 'https://shop.example.com/og.png',
    });
    assert.equal(res.statusCode, 303, res.body);
    const link = await apiLink(t, createdId(res.headers.location as string));
    assert.equal(link.domain, 'go.example.com');
    assert.equal(link.key, 'Spring-Sale');
    const url = new URL(link.url);
    assert.equal(url.searchParams.get('utm_source'), 'newsletter');
    assert.equal(url.searchParams.get('utm_campaign'), 'spring 2030');
    assert.equal(url.searchParams.get('ref'), 'x', 'the pasted query is kept');
    assert.equal(link.utm_medium, 'email');
    assert.deepEqual(link.tags.map((x: { id: string }) => x.id).sort(), [news, spring].sort());
    assert.equal(link.folderId, folder);
    assert.equal(link.expiresAt, '2030-06-01T12:30:00.000Z');
    assert.equal(link.expiredUrl, 'https://shop.example.com/over');
    assert.equal(link.password, 'open sesame');
    assert.equal(link.ios, 'https://apps.apple.com/app/x');
    assert.equal(link.android, 'https://play.google.com/store/apps/x');
    assert.deepEqual(link.geo, { DE: 'https://shop.example.com/de', FR: 'https://shop.example.com/fr' });
    assert.equal(link.trackConversion, true);
    assert.deepEqual(link.testVariants, [
      { url: 'https://shop.example.com/a', percentage: 60 },
      { url: 'https://shop.example.com/b', percentage: 40 },
    ]);
    assert.equal(link.title, 'Spring sale');
    assert.equal(link.description, 'Everything must go');
    assert.equal(link.image, 'https://shop.example.com/og.png');

    // The edit page shows the same values, and the QR code through GET /qr's renderer.
    const edit = await browser.get(res.headers.location as string);
    assert.equal(edit.statusCode, 200);
    assert.match(edit.body, /name="utm_source" value="newsletter"/);
    assert.match(edit.body, /name="geo_country_1" value="FR"/);
    assert.match(edit.body, /name="variant_percentage_1" value="40"/);
    assert.match(edit.body, new RegExp(`name="tag_${news}" value="on" checked`));
    const qr = /<img src="([^"]+)"/.exec(edit.body)![1]!.replaceAll('&amp;', '&');
    const image = await t.app.inject({ method: 'GET', url: qr });
    assert.equal(image.statusCode, 200);
    assert.match(String(image.headers['content-type']), /image\/svg\+xml/);
    const png = /<a href="([^"]+)" download="qr.png"/.exec(edit.body)![1]!.replaceAll('&amp;', '&');
    assert.equal((await t.app.inject({ method: 'GET', url: png })).headers['content-type'], 'image/png');
    // After Create: a notice with the full short link and Copy; the summary's figures; the link's analytics.
    const notice = /<p class="notice saved" role="status">([\s\S]*?)<\/p>/.exec(edit.body)?.[1] ?? '';
    assert.match(notice, /Link created: /);
    assert.ok(notice.includes(`>${link.shortLink}</a>`), notice);
    assert.ok(notice.includes(`data-copy="${link.shortLink}"`), notice);
    assert.match(edit.body, /<dl class="totals" id="totals" data-clicks="0" data-leads="0" data-sales="0" data-sale-amount="0">/);
    assert.ok(edit.body.includes(`/analytics?interval=all&linkId=${link.id}">Analytics of this link`));
    // The plain edit page has the summary but no notice.
    const plain = await browser.get((res.headers.location as string).replace(/\?.*$/, ''));
    assert.doesNotMatch(plain.body, /class="notice saved"/);
    assert.ok(plain.body.includes(`data-copy="${link.shortLink}"`));
  } finally {
    await t.close();
  }
});

test('editing a link changes what the API returns; emptied fields are cleared', async () => {
  const t = await createTestApp();
  try {
    const link = await createLink(t, { url: 'https://example.com/?utm_source=a', password: 'pw', title: 'Old', geo: { US: 'https://example.com/us' } });
    const browser = await logIn(t, await addUser(t, 'member'));
    const edit = `/dashboard/w/${await slugOf(t)}/links/${link.id}/edit`;
    await browser.get(edit);
    const res = await browser.post(edit, { url: 'https://example.com/new', domain: link.domain, key: link.key, utm_source: '', utm_campaign: 'c', title: 'New', password: '', geo_country_0: '', geo_url_0: '' });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, `${edit}?saved=saved`);
    assert.match((await browser.get(res.headers.location as string)).body, /<p class="notice saved" role="status"><span>Link saved: <\/span>/);
    const after = await apiLink(t, link.id);
    assert.equal(after.url, 'https://example.com/new?utm_campaign=c');
    assert.equal(after.utm_source, null);
    assert.equal(after.title, 'New');
    assert.equal(after.password, null);
    assert.equal(after.geo, null);
    assert.equal(after.key, link.key);
  } finally {
    await t.close();
  }
});

test('refusals of the API land at their field, with the form as it was typed', async () => {
  const t = await createTestApp();
  try {
    const taken = await createLink(t, { url: 'https://example.com/', key: 'taken' });
    const browser = await logIn(t, await addUser(t, 'owner'));
    const base = `/dashboard/w/${await slugOf(t)}/links`;
    await browser.get(`${base}/new`);
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ url: 'ftp://example.com/file', title: 'Typed <title>' }, 'url', /^The destination URL must be a web address/],
      [{ url: 'https://example.com/', key: 'taken', domain: taken.domain }, 'key', /already exists/],
      [{ url: 'https://example.com/', domain: 'not-ours.example.org' }, 'domain', /[Dd]omain/],
      [{ url: 'https://example.com/', geo_country_0: 'US', geo_url_0: 'javascript:alert(1)' }, 'geo', /^The URL for United States must be a web address/],
      [{ url: 'https://example.com/', expiresAt: 'tomorrow' }, 'expiresAt', /^The expiry date is not a date and time/],
      [{ url: 'https://example.com/', expiresAtLocal: 'tomorrow' }, 'expiresAt', /^The expiry date is not a date and time/],
      [{ url: 'https://example.com/', ios: 'not a url' }, 'ios', /^The iOS destination must be a web address/],
      [{ url: 'https://example.com/', trackConversion: 'on', variant_url_0: 'https://a.example/', variant_percentage_0: '5', variant_url_1: 'https://b.example/', variant_percentage_1: '95' }, 'variants', /Variant 1&#39;s share must be at least 10\. Variant 2&#39;s share can be at most 90\./],
      [{ url: 'https://example.com/', variant_url_0: 'https://a.example/', variant_percentage_0: '50', variant_url_1: 'https://b.example/', variant_percentage_1: '50' }, 'variants', /Conversion tracking/],
    ];
    for (const [fields, field, message] of cases) {
      const res = await browser.post(`${base}/new`, fields);
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${field}: ${res.statusCode}`);
      const printed = fieldError(res.body, field);
      assert.ok(printed, `${field}: message at the field in ${res.body.slice(res.body.indexOf('<form'), res.body.indexOf('<form') + 400)}`);
      assert.match(printed!, message, field);
      assert.match(res.body, new RegExp(`name="${field === 'variants' ? 'variant_url_0' : field === 'geo' ? 'geo_url_0' : field === 'expiresAt' ? 'expiresAtLocal' : field}"[^>]*aria-invalid="true"|id="err-${field}"`));
      // What was typed comes back, escaped.
      // (@kitajs/html escapes quotes and ampersands in attributes; `<` inside a quoted value is text.)
      if (fields.title) assert.match(res.body, /name="title" value="Typed <title>"/);
      if (fields.ios) assert.match(res.body, /name="ios" value="not a url"/);
    }
    const res = await browser.post(`${base}/new`, { url: 'ftp://example.com/file' });
    assert.equal(res.statusCode, 422);
    // Every problem at once: the form's own and the key's availability (asked of the service even though the form failed).
    const all = await browser.post(`${base}/new`, { url: 'ftp://example.com/file', key: 'taken', domain: taken.domain, ios: 'nope', geo_country_0: 'Germny', geo_url_0: 'https://a.example/' });
    assert.equal(all.statusCode, 422);
    for (const field of ['url', 'key', 'ios', 'geo']) assert.ok(fieldError(all.body, field), `${field} too`);
    assert.match(fieldError(all.body, 'key')!, /already exists/);
    // Nothing was created by the refused forms.
    const list = await t.app.inject({ method: 'GET', url: '/links', headers: t.headers });
    assert.equal(list.json().length, 1);
  } finally {
    await t.close();
  }
});

test('the key availability fragment answers with the API rule: free, taken, reserved, the link’s own key', async () => {
  const t = await createTestApp();
  try {
    const taken = await createLink(t, { url: 'https://example.com/', key: 'taken' });
    const browser = await logIn(t, await addUser(t, 'member'));
    const base = `/dashboard/w/${await slugOf(t)}/links`;
    const check = async (q: Record<string, string>) => {
      const res = await browser.get(`${base}/key-check?${new URLSearchParams(q)}`, { 'hx-request': 'true' });
      assert.equal(res.statusCode, 200);
      return res.body;
    };
    assert.match(await check({ domain: taken.domain, key: 'fresh' }), /<span class="ok">[^<]*\/fresh is available\.<\/span>/);
    assert.match(await check({ domain: taken.domain, key: 'TAKEN' }), /<span class="error">Duplicate key/);
    assert.match(await check({ domain: taken.domain, key: '' }), /random key/);
    assert.match(await check({ domain: 'elsewhere.example.org', key: 'x' }), /<span class="error">Domain does not belong/);
    assert.match(await check({ domain: taken.domain, key: 'taken', linkId: taken.id }), /current key/);
    assert.match(await check({ domain: taken.domain, key: '<b>x' }), /&lt;b>x|<span class="error">/);
    assert.doesNotMatch(await check({ domain: taken.domain, key: '<b>x' }), /<b>/);
  } finally {
    await t.close();
  }
});

test('viewers get no builder and are refused every write; another workspace’s link is 404', async () => {
  const t = await createTestApp();
  try {
    const other = await t.addWorkspace();
    const theirs = await createLink(t, { url: 'https://example.com/theirs' }, other.headers);
    const ours = await createLink(t, { url: 'https://example.com/ours', title: '<script>alert(1)</script>', description: '</textarea><b>x</b>' });
    const slug = await slugOf(t);
    const base = `/dashboard/w/${slug}/links`;
    const viewer = await logIn(t, await addUser(t, 'viewer'));
    await viewer.get(base);
    for (const path of [`${base}/new`, `${base}/key-check?key=x`]) assert.equal((await viewer.get(path)).statusCode, 403, path);
    // The edit address sends a viewer to the link's read-only page (which they may open).
    const edit = await viewer.get(`${base}/${ours.id}/edit`);
    assert.equal(edit.statusCode, 303);
    assert.equal(edit.headers.location, `${base}/${ours.id}`);
    assert.equal((await viewer.get(`${base}/${ours.id}`)).statusCode, 200);
    assert.equal((await viewer.post(`${base}/new`, { url: 'https://example.com/v' })).statusCode, 403);
    assert.equal((await viewer.post(`${base}/${ours.id}/edit`, { url: 'https://example.com/v' })).statusCode, 403);
    assert.equal((await apiLink(t, ours.id)).url, 'https://example.com/ours');

    const member = await logIn(t, await addUser(t, 'member'));
    const page = await member.get(`${base}/${ours.id}/edit`);
    // Inside a quoted attribute value the markup is text; nowhere else does it appear.
    assert.match(page.body, /name="title" value="<script>alert\(1\)<\/script>"/);
    assert.equal(page.body.split('<script>alert').length, 2);
    assert.match(page.body, /<textarea name="description"[^>]*>&lt;\/textarea>&lt;b>x&lt;\/b><\/textarea>/);
    assert.equal((await member.get(`${base}/${theirs.id}/edit`)).statusCode, 404);
    assert.equal((await member.post(`${base}/${theirs.id}/edit`, { url: 'https://example.com/mine' })).statusCode, 404);
    assert.equal((await apiLink(t, theirs.id, other.headers)).url, 'https://example.com/theirs');
    // Without the CSRF field a form is refused before anything is written.
    assert.equal((await member.post(`${base}/new`, { url: 'https://example.com/x', _csrf: null })).statusCode, 403);
  } finally {
    await t.close();
  }
});

test('expiry: the browser’s ISO value wins, seconds are kept, the saved time comes back for links.js to show locally, a past date warns', async () => {
  const t = await createTestApp();
  try {
    const browser = await logIn(t, await addUser(t, 'member'));
    const base = `/dashboard/w/${await slugOf(t)}/links`;
    const form = await browser.get(`${base}/new`);
    assert.match(form.body, /<input type="datetime-local" name="expiresAtLocal" step="1" value="" data-local-time="expiresAt"/);
    assert.match(form.body, /<input type="hidden" name="expiresAt" value=""/);
    assert.match(form.body, /<span class="warning" id="expiry-past" role="status" hidden>/, 'no warning without a date');

    // links.js sent the ISO value of 12:30:15 in Berlin (summer: UTC+2).
    const res = await browser.post(`${base}/new`, { url: 'https://shop.example.com/', expiresAtLocal: '2030-06-01T12:30:15', expiresAt: '2030-06-01T10:30:15.000Z' });
    assert.equal(res.statusCode, 303, res.body);
    const id = createdId(res.headers.location as string);
    assert.equal((await apiLink(t, id)).expiresAt, '2030-06-01T10:30:15.000Z');
    const edit = await browser.get(`${base}/${id}/edit`);
    assert.match(edit.body, /name="expiresAtLocal" step="1" value="2030-06-01T10:30:15" data-local-time="expiresAt" data-utc="2030-06-01T10:30:15.000Z"/, 'UTC until links.js shows it locally');
    assert.match(edit.body, /id="expiry-past" role="status" hidden>/, 'a future date: no warning');

    // Without JavaScript the hidden field is empty: the shown value is read as UTC, seconds kept.
    const plain = await browser.post(`${base}/${id}/edit`, { url: 'https://shop.example.com/', expiresAtLocal: '2020-01-02T03:04:05', expiresAt: '' });
    assert.equal(plain.statusCode, 303, plain.body);
    assert.equal((await apiLink(t, id)).expiresAt, '2020-01-02T03:04:05.000Z');
    const past = await browser.get(`${base}/${id}/edit`);
    assert.match(past.body, /<span class="warning" id="expiry-past" role="status">This date is in the past/, 'a past date warns');

    // Emptied: no expiry.
    assert.equal((await browser.post(`${base}/${id}/edit`, { url: 'https://shop.example.com/', expiresAtLocal: '', expiresAt: '' })).statusCode, 303);
    assert.equal((await apiLink(t, id)).expiresAt, null);
  } finally {
    await t.close();
  }
});

/**
 * Issue 42's defects on the engine under test: every refusal a person can cause is a sentence
 * at its field on the same page, never the API's developer wording; the webhook form creates a
 * `link.clicked` webhook with its link scope; a workspace without links opens on its
 * getting-started steps; viewers read a link's details; customers sort; tags show colours.
 * The pure parts (form-errors.ts, webhook-form.ts, page-card's `unreachable`) are checked alone.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { ApiError } from '../http/errors.js';
import { unreachable } from '../outbound/page-card.js';
import { CreateTagBody } from '../tags/schema.js';
import { errorsOfRefusal, parseForm } from './form-errors.js';
import { webhookFormInput, webhookFormValues, webhookRefusal } from './webhook-form.js';
import { insertClick, insertLink } from '../test-support/conversions.js';
import { signInEveryRole, createLink, type Browser } from './testing.js';

/** A developer's wording that must never reach a page. */
const DEVELOPER_WORDS = /WEBHOOK_ALLOW_PRIVATE|ENOTFOUND|getaddrinfo|linkScope|tagId:|refused:|Too small|expected string/;

/** A page's text, without its markup (field names such as `linkScope` are fine in attributes). */
const textOf = (html: string) => html.replace(/<[^>]*>/g, ' ');

/** The text of `<p class="error" id="err-<field>">` on a page. */
const fieldError = (html: string, field: string) => new RegExp(`<p class="error" id="err-${field.replace('.', '\\.')}" role="alert">([^<]*)</p>`).exec(html)?.[1];

test('parseForm and errorsOfRefusal word schema problems and refusals as sentences per field', () => {
  const tag = parseForm(CreateTagBody, { name: 'x'.repeat(300) }, { name: 'the name' });
  assert.deepEqual(tag, { ok: false, errors: { name: 'The name is too long: at most 190 characters.' } });
  const empty = parseForm(z.object({ name: z.string().trim().min(1) }), { name: '  ' }, { name: 'the name' });
  assert.deepEqual(empty, { ok: false, errors: { name: 'Enter the name.' } });
  const refused = errorsOfRefusal(new ApiError('unprocessable_entity', 'url: refused: localhost. is a local name, always a private or reserved address (WEBHOOK_ALLOW_PRIVATE=true allows it)'), { url: 'the URL' });
  assert.match(refused.url!, /^This address is on a private or local network/);
  assert.doesNotMatch(refused.url!, DEVELOPER_WORDS);
  assert.deepEqual(errorsOfRefusal(new ApiError('unprocessable_entity', 'email: must be an email address', { field: 'email' }), { email: 'the email address' }), {
    email: 'The email address must be an email address.',
  });
  assert.throws(() => errorsOfRefusal(new Error('boom'), {}), /boom/, 'a failure that is not a refusal is not a form error');
});

test('the webhook form: link.clicked needs a scope and, for chosen links or folders, a choice; the body is the API’s', () => {
  const base = { name: 'CRM', url: 'https://crm.example.com/in', 'trigger_link.clicked': 'on' };
  const none = webhookFormInput(webhookFormValues({ ...base }));
  assert.equal(none.ok, false);
  assert.match((none as { errors: Record<string, string> }).errors.linkScope!, /^Choose whose clicks to send/);
  const noLink = webhookFormInput(webhookFormValues({ ...base, linkScope: 'links' }));
  assert.match((noLink as { errors: Record<string, string> }).errors.linkScope!, /^Tick at least one link/);
  const ok = webhookFormInput(webhookFormValues({ ...base, linkScope: 'links', link_link_1: 'on', folder_fold_1: 'on' }));
  assert.deepEqual(ok, { ok: true, input: { name: 'CRM', url: 'https://crm.example.com/in', triggers: ['link.clicked'], linkScope: 'links', linkIds: ['link_1'] } });
  // Without link.clicked the link choice is not sent (the API refuses a scope without it).
  const leads = webhookFormInput(webhookFormValues({ name: 'L', url: 'https://crm.example.com/l', 'trigger_lead.created': 'on', linkScope: 'workspace' }));
  assert.deepEqual(leads, { ok: true, input: { name: 'L', url: 'https://crm.example.com/l', triggers: ['lead.created'] } });
  const nothing = webhookFormInput(webhookFormValues({ name: '', url: 'ftp://x' }));
  assert.deepEqual(Object.keys((nothing as { errors: object }).errors).sort(), ['name', 'triggers', 'url']);
  for (const message of Object.values((nothing as { errors: Record<string, string> }).errors)) assert.doesNotMatch(message, DEVELOPER_WORDS);
  assert.match(webhookRefusal(new ApiError('unprocessable_entity', 'Invalid linkIds detected: link_x')).linkScope!, /chosen link no longer exists/);
});

test('the preview fetch words the system’s error codes', () => {
  assert.equal(unreachable('ENOTFOUND: getaddrinfo ENOTFOUND shop.exmaple.com', 'https://shop.exmaple.com/spring'), 'No website was found at shop.exmaple.com: check the destination URL for typing mistakes.');
  assert.match(unreachable('ECONNREFUSED: connect ECONNREFUSED 1.2.3.4:443', 'https://a.example/'), /^a\.example refused the connection/);
  assert.match(unreachable('DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate', 'https://b.example/'), /no valid HTTPS certificate/);
  assert.match(unreachable(null, 'https://c.example/'), /c\.example could not be reached/);
  for (const code of ['ENOTFOUND', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'CERT_HAS_EXPIRED', 'EWHATEVER']) assert.ok(!unreachable(`${code}: x`, 'https://d.example/').includes(code), code);
});

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
const at = (rest: string) => `/dashboard/w/${slug}${rest}`;

test('a new workspace opens on its getting-started steps, with links to the link builder, domains and API keys', async () => {
  const page = await owner.get(at('/links'));
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<h2 id="getting-started">Get started<\/h2>/);
  for (const href of ['/links/new', '/settings/domains', '/settings/keys']) assert.ok(page.body.includes(`href="${at(href)}"`), href);
  const seen = await viewer.get(at('/links'));
  assert.match(seen.body, /<h2 id="getting-started">No links yet<\/h2>/);
  assert.ok(!seen.body.includes(`href="${at('/links/new')}"`), 'viewers are not sent to a builder they may not use');
  // A filter that matches nothing is not a new workspace.
  assert.doesNotMatch((await owner.get(at('/links?search=nothing'))).body, /getting-started/);
});

test('webhooks: a link.clicked webhook for chosen links is created from the form; refusals are sentences at their fields', async () => {
  const link = await createLink(t, { url: 'https://example.com/spring', key: 'spring-hook' });
  const form = await owner.get(at('/settings/webhooks'));
  assert.match(form.body, new RegExp(`<input type="checkbox" name="link_${link.id}" value="on"/> <span>[^<]*spring-hook`), 'the link picker lists the link');
  assert.match(form.body, /<input type="radio" name="linkScope" value="workspace" checked\/>/);

  const missing = await owner.post(at('/settings/webhooks'), { name: 'Clicks', url: 'https://hooks.example.com/c', 'trigger_link.clicked': 'on', linkScope: 'links' });
  assert.equal(missing.statusCode, 422);
  assert.equal(fieldError(missing.body, 'linkScope'), 'Tick at least one link whose clicks to send (or choose every link).');
  assert.match(missing.body, /name="name" value="Clicks"/, 'the form comes back as typed');

  const bad = await owner.post(at('/settings/webhooks'), { name: '', url: 'http://127.0.0.1:9/x' });
  assert.equal(bad.statusCode, 422);
  assert.equal(fieldError(bad.body, 'name'), 'Enter the name.');
  assert.equal(fieldError(bad.body, 'triggers'), 'Tick at least one event to send (link.clicked, lead.created…).');
  assert.doesNotMatch(textOf(bad.body), DEVELOPER_WORDS);

  const private_ = await owner.post(at('/settings/webhooks'), { name: 'Local', url: 'http://127.0.0.1:9/x', 'trigger_lead.created': 'on' });
  assert.equal(private_.statusCode, 422);
  assert.match(fieldError(private_.body, 'url')!, /^This address is on a private or local network/);
  assert.doesNotMatch(textOf(private_.body), DEVELOPER_WORDS);

  const created = await owner.post(at('/settings/webhooks'), { name: 'Clicks', url: 'https://hooks.example.com/c', 'trigger_link.clicked': 'on', linkScope: 'links', [`link_${link.id}`]: 'on' });
  assert.equal(created.statusCode, 303, created.body);
  const hooks = (await t.inject({ method: 'GET', url: '/webhooks' })).json() as { name: string; triggers: string[]; linkScope: string; linkIds: string[] }[];
  const hook = hooks.find((h) => h.name === 'Clicks');
  assert.deepEqual({ triggers: hook?.triggers, linkScope: hook?.linkScope, linkIds: hook?.linkIds }, { triggers: ['link.clicked'], linkScope: 'links', linkIds: [link.id] });
  assert.match((await owner.get(at('/settings/webhooks'))).body, /Clicks of 1 chosen link\./);
});

test('webhooks: the edit page shows the webhook as saved, changes it (the link picker for link.clicked), puts refusals at their fields; owners only', async () => {
  const first = await createLink(t, { url: 'https://example.com/edit-a', key: 'edit-hook-a' });
  const second = await createLink(t, { url: 'https://example.com/edit-b', key: 'edit-hook-b' });
  const made = await t.inject({ method: 'POST', url: '/webhooks', payload: { name: 'Leads', url: 'https://hooks.example.com/leads', triggers: ['lead.created'] } });
  const id = (made.json() as { id: string }).id;
  const edit = at(`/settings/webhooks/${id}/edit`);
  assert.match((await owner.get(at('/settings/webhooks'))).body, new RegExp(`href="${edit}"`), 'the list links to the edit page');
  const form = await owner.get(edit);
  assert.equal(form.statusCode, 200);
  assert.match(form.body, /name="name" value="Leads"/);
  assert.match(form.body, /name="url" value="https:\/\/hooks.example.com\/leads"/);
  assert.match(form.body, /name="trigger_lead.created" value="on" checked/);
  assert.doesNotMatch(form.body, /name="trigger_link.clicked" value="on" checked/);
  assert.match(form.body, new RegExp(`<input type="checkbox" name="link_${second.id}" value="on"/>`), 'the link picker lists the links');

  // link.clicked without a link chosen: the sentence at the link choice, the form as typed.
  const missing = await owner.post(edit, { name: 'Clicks now', url: 'https://hooks.example.com/leads', 'trigger_link.clicked': 'on', linkScope: 'links' });
  assert.equal(missing.statusCode, 422);
  assert.equal(fieldError(missing.body, 'linkScope'), 'Tick at least one link whose clicks to send (or choose every link).');
  assert.match(missing.body, /name="name" value="Clicks now"/);
  const bad = await owner.post(edit, { name: '', url: 'http://127.0.0.1:9/x', 'trigger_lead.created': 'on' });
  assert.equal(bad.statusCode, 422);
  assert.equal(fieldError(bad.body, 'name'), 'Enter the name.');
  const private_ = await owner.post(edit, { name: 'Local', url: 'http://127.0.0.1:9/x', 'trigger_lead.created': 'on' });
  assert.equal(private_.statusCode, 422);
  assert.match(fieldError(private_.body, 'url')!, /^This address is on a private or local network/);
  assert.doesNotMatch(textOf(private_.body), DEVELOPER_WORDS);
  const unchanged = (await t.inject({ method: 'GET', url: `/webhooks/${id}` })).json() as { name: string; url: string };
  assert.deepEqual([unchanged.name, unchanged.url], ['Leads', 'https://hooks.example.com/leads'], 'a refused form changes nothing');

  const saved = await owner.post(edit, { name: 'Clicks', url: 'https://hooks.example.com/clicks', 'trigger_link.clicked': 'on', linkScope: 'links', [`link_${first.id}`]: 'on', [`link_${second.id}`]: 'on' });
  assert.equal(saved.statusCode, 303, saved.body);
  assert.equal(saved.headers.location, at(`/settings/webhooks/${id}`));
  const hook = (await t.inject({ method: 'GET', url: `/webhooks/${id}` })).json() as { name: string; url: string; triggers: string[]; linkScope: string; linkIds: string[] };
  assert.deepEqual({ ...hook, linkIds: [...hook.linkIds].sort() }, { ...hook, name: 'Clicks', url: 'https://hooks.example.com/clicks', triggers: ['link.clicked'], linkScope: 'links', linkIds: [first.id, second.id].sort() });
  const again = (await owner.get(edit)).body;
  for (const link of [first, second]) assert.match(again, new RegExp(`name="link_${link.id}" value="on" checked`), 'the chosen links ticked');
  assert.match(again, /name="linkScope" value="links" checked/);

  // Back to every link, then off link.clicked: the scope goes with the trigger.
  assert.equal((await owner.post(edit, { name: 'Clicks', url: 'https://hooks.example.com/clicks', 'trigger_link.clicked': 'on', linkScope: 'workspace' })).statusCode, 303);
  assert.equal(((await t.inject({ method: 'GET', url: `/webhooks/${id}` })).json() as { linkScope: string }).linkScope, 'workspace');
  assert.equal((await owner.post(edit, { name: 'Clicks', url: 'https://hooks.example.com/clicks', 'trigger_sale.created': 'on' })).statusCode, 303);
  const off = (await t.inject({ method: 'GET', url: `/webhooks/${id}` })).json() as { triggers: string[]; linkScope: string | null };
  assert.deepEqual([off.triggers, off.linkScope], [['sale.created'], null]);

  // Members and viewers neither see nor send the form; an unknown webhook is a 404.
  for (const b of [member, viewer]) {
    assert.equal((await b.get(edit)).statusCode, 403);
    assert.equal((await b.post(edit, { name: 'Mine', url: 'https://hooks.example.com/m', 'trigger_lead.created': 'on' })).statusCode, 403);
  }
  assert.doesNotMatch((await viewer.get(at('/settings/webhooks'))).body, /\/edit"/, 'no edit link for a viewer');
  assert.equal((await owner.get(at('/settings/webhooks/wh_missing/edit'))).statusCode, 404);
  assert.equal((await owner.post(at('/settings/webhooks/wh_missing/edit'), { name: 'X', url: 'https://hooks.example.com/x', 'trigger_lead.created': 'on' })).statusCode, 404);
  assert.equal(((await t.inject({ method: 'GET', url: `/webhooks/${id}` })).json() as { name: string }).name, 'Clicks');
});

test('"Add tag" with no tag chosen comes back to the list with a sentence at the tag’s list, not an error page', async () => {
  const link = await createLink(t, { url: 'https://example.com/tagme', key: 'tag-me' });
  await member.get(at('/links'));
  const res = await member.post(at('/links/bulk'), { op: 'tag', tagId: '', [`sel_${link.id}`]: 'on', back: 'search=tag' });
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, at('/links?search=tag&missing=tag'));
  const list = await member.get(res.headers.location as string);
  assert.equal(list.statusCode, 200);
  assert.equal(fieldError(list.body, 'tagId'), 'Choose the tag to add in this list, tick the links again, then press “Add tag”.');
  assert.match(list.body, /<select name="tagId" aria-label="Tag to add" aria-invalid="true" aria-describedby="err-tagId">/);
  assert.doesNotMatch(textOf(list.body), DEVELOPER_WORDS);
});

test('settings forms: tags, domains, general, keys and invitations answer at their fields in plain words', async () => {
  const tag = await member.post(at('/settings/tags'), { name: 'x'.repeat(191) });
  assert.equal(tag.statusCode, 422);
  assert.equal(fieldError(tag.body, 'name'), 'The name is too long: at most 190 characters.');
  const domain = await owner.post(at('/settings/domains'), { slug: 'not a domain' });
  assert.equal(domain.statusCode, 422);
  assert.ok(fieldError(domain.body, 'slug'), domain.body);
  assert.match(domain.body, /name="slug" value="not a domain"/);
  const general = await owner.post(at('/settings/general'), { name: 'Acme', slug: 'ab' });
  assert.equal(general.statusCode, 422);
  assert.equal(fieldError(general.body, 'slug'), 'The slug is too short: at least 3 characters.');
  const key = await owner.post(at('/settings/keys'), { name: 'Scoped', access: 'custom' });
  assert.equal(key.statusCode, 422);
  assert.equal(fieldError(key.body, 'access'), 'Choose Read or Read and write for at least one resource, or choose full or read-only access.');
  await owner.get(at('/settings/members'));
  const invite = await owner.post(at('/settings/members/invite'), { email: 'not-an-email', role: 'member' });
  assert.equal(invite.statusCode, 422);
  assert.ok(fieldError(invite.body, 'email'), invite.body);
  for (const body of [tag.body, domain.body, general.body, key.body, invite.body]) assert.doesNotMatch(textOf(body), DEVELOPER_WORDS);
});

test('a tag’s colour is chosen, saved and shown; a new API key and an invitation link have Copy buttons', async () => {
  await member.get(at('/settings/tags'));
  assert.equal((await member.post(at('/settings/tags'), { name: 'Autumn', color: 'green' })).statusCode, 303);
  const tags = (await t.inject({ method: 'GET', url: '/tags' })).json() as { name: string; color: string }[];
  assert.equal(tags.find((x) => x.name === 'Autumn')?.color, 'green');
  assert.match((await member.get(at('/settings/tags'))).body, /<span class="tag-swatch tag-green" role="img" aria-label="green tag"><\/span>/);

  await owner.get(at('/settings/keys'));
  const key = await owner.post(at('/settings/keys'), { name: 'CI', access: 'all' });
  assert.equal(key.statusCode, 201);
  const secret = /<code class="secret" id="new-api-key">([^<]+)<\/code>/.exec(key.body)?.[1];
  assert.ok(secret);
  assert.ok(key.body.includes(`<button type="button" class="secondary" data-copy="${secret}" hidden aria-describedby="new-api-key">Copy key</button>`));

  await owner.get(at('/settings/members'));
  const invite = await owner.post(at('/settings/members/invite'), { email: 'newcomer@example.com', role: 'viewer' });
  assert.equal(invite.statusCode, 201);
  assert.match(invite.body, /<button type="button" class="secondary" data-copy="http[^"]+\/dashboard\/invite\?token=[^"]+" hidden aria-describedby="invite-url">Copy link<\/button>/);
});

test('viewers open a link’s read-only details from the list; customers sort by revenue', async () => {
  const link = await createLink(t, { url: 'https://example.com/details', key: 'details', title: 'Details page', utm_source: 'news', password: 'secret-pass' });
  const list = await viewer.get(at('/links'));
  assert.ok(list.body.includes(`<a href="${at(`/links/${link.id}`)}">Details</a>`));
  const details = await viewer.get(at(`/links/${link.id}`));
  assert.equal(details.statusCode, 200);
  assert.match(details.body, /<span class="url">https:\/\/example\.com\/details\?utm_source=news<\/span>|<span class="url">https:\/\/example\.com\/details<\/span>/);
  assert.match(details.body, /Source: news/);
  assert.match(details.body, /Required to open it/);
  assert.doesNotMatch(details.body, /secret-pass/, 'the password itself is never shown');
  assert.doesNotMatch(details.body, /\/edit"/, 'no Edit for a viewer');
  assert.equal((await viewer.get(at('/links/link_doesnotexist'))).statusCode, 404);

  // Two customers: the smaller sale first in time, so revenue order differs from creation order.
  const fixture = await insertLink(t, { key: 'sorted' });
  for (const [name, amount] of [['Small Spender', 500], ['Big Spender', 9000]] as const) {
    const click = await insertClick(t, fixture);
    const api = (url: string, payload: object) => t.inject({ method: 'POST', url, payload });
    assert.equal((await api('/track/lead', { clickId: click.click_id, eventName: 'Sign up', customerExternalId: name, customerName: name, mode: 'wait' })).statusCode, 200);
    assert.equal((await api('/track/sale', { customerExternalId: name, amount, eventName: 'Purchase' })).statusCode, 200);
  }
  const order = (html: string) => [...html.matchAll(/>(Small|Big) Spender</g)].map((m) => m[1]);
  const byRevenue = await viewer.get(at('/customers?sortBy=saleAmount&sortOrder=desc'));
  assert.deepEqual(order(byRevenue.body), ['Big', 'Small']);
  assert.match(byRevenue.body, /<th scope="col" class="num" aria-sort="descending"><a href="[^"]*sortBy=saleAmount&(amp;)?sortOrder=asc" class="sort">/, 'the header says the order and offers the reverse');
  assert.deepEqual(order((await viewer.get(at('/customers?sortBy=saleAmount&sortOrder=asc'))).body), ['Small', 'Big']);
  const bogus = await viewer.get(at('/customers?sortBy=nonsense'));
  assert.equal(bogus.statusCode, 200, 'an unknown order falls back to the default');
});

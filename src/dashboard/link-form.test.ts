/** The builder's form ↔ body mapping (link-form.ts): pure, no database. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../http/errors.js';
import { errorsOfApiError, formToBody, formToRawBody, geoRowCount, linkToForm } from './link-form.js';

test('on create, empty fields are left to the defaults; on edit they clear the value', () => {
  const fields = { url: ' https://a.example/?utm_source=x ', key: '', title: '', utm_source: '', utm_medium: 'mail', password: ' p ' };
  const created = formToRawBody(fields, 'create');
  assert.deepEqual(created, { url: 'https://a.example/?utm_source=x', password: ' p ', utm_medium: 'mail', trackConversion: false, tagIds: [] });
  const edited = formToRawBody(fields, 'edit');
  assert.equal(edited.title, null);
  assert.equal(edited.utm_source, null, 'an emptied UTM field removes the parameter');
  assert.equal(edited.key, undefined, 'an empty key is not a change');
  assert.equal(edited.geo, null);
  assert.equal(edited.testVariants, null);
  assert.equal(edited.publicStats, false, 'an unticked "Share stats" turns it off');
  assert.equal(formToRawBody({ ...fields, publicStats: 'on' }, 'create').publicStats, true);
});

test('tags, geo rows and variants become the API’s shapes; a non-number percentage is left for the schema to refuse', () => {
  const body = formToRawBody(
    { url: 'https://a.example/', tag_t1: 'on', tag_t2: '', geo_country_0: 'us', geo_url_0: 'https://a.example/us', geo_country_1: '', geo_url_1: '', variant_url_0: 'https://a.example/1', variant_percentage_0: '50', variant_url_1: 'https://a.example/2', variant_percentage_1: 'half' },
    'create',
  );
  assert.deepEqual(body.tagIds, ['t1']);
  assert.deepEqual(body.geo, { US: 'https://a.example/us' });
  assert.deepEqual(body.testVariants, [
    { url: 'https://a.example/1', percentage: 50 },
    { url: 'https://a.example/2', percentage: 'half' },
  ]);
  const parsed = formToBody({ url: 'https://a.example/', variant_url_0: 'https://a.example/1', variant_percentage_0: '50', variant_url_1: 'https://a.example/2', variant_percentage_1: 'half' }, 'create');
  assert.equal(parsed.ok, false);
  assert.equal((parsed as { errors: { variants?: string } }).errors.variants, "Variant 2's share must be a number.");
  assert.equal(geoRowCount({ geo_country_0: 'US', geo_url_0: 'x' }), 3);
});

test('a service refusal is printed at the field its error carries, whatever its wording', () => {
  const at = (message: string, field?: string, code: ConstructorParameters<typeof ApiError>[0] = 'unprocessable_entity') => errorsOfApiError(new ApiError(code, message, { field }));
  assert.deepEqual(at('Duplicate key: This short link already exists.', 'key', 'conflict'), { key: 'Duplicate key: This short link already exists.' });
  // The field decides, not the words: a message about "domains" carried by the key stays at the key.
  assert.deepEqual(Object.keys(at('This key is reserved on every domain.', 'key', 'forbidden')), ['key']);
  assert.deepEqual(Object.keys(at('Domain does not belong to workspace.', 'domain', 'forbidden')), ['domain']);
  assert.deepEqual(Object.keys(at('Conversion tracking must be enabled to use A/B testing.', 'testVariants')), ['variants']);
  assert.deepEqual(Object.keys(at('x', 'testVariants[1].url')), ['variants']);
  assert.deepEqual(Object.keys(at('x', 'utm_source')), ['utm']);
  assert.deepEqual(Object.keys(at('x', 'prefix')), ['key']);
  assert.deepEqual(at('Invalid tagIds detected: t9', 'tagIds'), { tags: 'A chosen tag no longer exists (deleted meanwhile?): reload the page and choose again.' });
  assert.deepEqual(Object.keys(at('Folder not found.', 'folderId', 'not_found')), ['folderId']);
  // No field (a plan or quota refusal): above the form, even when the words name a field.
  assert.deepEqual(Object.keys(at("You've reached your monthly limit of 25 links. The destination URL and key were fine.", undefined, 'forbidden')), ['form']);
  assert.throws(() => errorsOfApiError(new Error('boom')), /boom/);
  assert.throws(() => errorsOfApiError(new ApiError('internal_server_error', 'x')));
});

test('every problem of the form at once, each at its field, in plain words', () => {
  const parsed = formToBody(
    {
      url: 'ftp://files.example',
      key: 'k'.repeat(200),
      utm_source: 'u'.repeat(200),
      expiredUrl: 'javascript:alert(1)',
      expiresAt: 'tomorrow',
      geo_country_0: 'DE',
      geo_url_0: 'not a url',
      geo_country_1: 'Germny',
      geo_url_1: 'https://a.example/x',
      variant_url_0: 'https://a.example/1',
      variant_percentage_0: 'half',
      variant_url_1: 'x',
      variant_percentage_1: '95',
      trackConversion: 'on',
    },
    'create',
  );
  assert.equal(parsed.ok, false);
  const errors = (parsed as { errors: Record<string, string> }).errors;
  assert.deepEqual(Object.keys(errors).sort(), ['expiredUrl', 'expiresAt', 'geo', 'key', 'url', 'utm', 'variants']);
  assert.equal(errors.url, 'The destination URL must be a web address starting with https:// (or http://).');
  assert.equal(errors.key, 'The key is too long: at most 190 characters.');
  assert.equal(errors.utm, 'The UTM source is too long: at most 190 characters.');
  assert.equal(errors.expiredUrl, 'The address after expiry must be a web address starting with https:// (or http://).');
  assert.equal(errors.expiresAt, 'The expiry date is not a date and time: choose one in the calendar.');
  assert.match(errors.geo!, /The URL for Germany must be a web address/);
  assert.match(errors.geo!, /“Germny” is not a country/);
  assert.match(errors.variants!, /Variant 1's share must be a number\./);
  assert.match(errors.variants!, /Variant 2's URL must be a web address/);
  assert.match(errors.variants!, /Variant 2's share can be at most 90\./);
  for (const message of Object.values(errors)) assert.doesNotMatch(message, /invalid_type|too_big|custom:|ISO-8601|\[\d\]/, 'no developer wording');
});

test('"Custom link preview" is saved only when a preview field is filled', () => {
  const base = { url: 'https://a.example/', proxy: 'on' };
  assert.equal(formToRawBody({ ...base, title: 'Sale' }, 'create').proxy, true);
  assert.equal(formToRawBody({ ...base, image: 'https://a.example/i.png' }, 'edit').proxy, true);
  assert.equal(formToRawBody(base, 'create').proxy, undefined, 'ticked but empty: the destination\'s own card');
  assert.equal(formToRawBody(base, 'edit').proxy, false);
  assert.equal(formToRawBody({ url: base.url, title: 'Sale' }, 'edit').proxy, false, 'unticked');
  assert.equal(linkToForm({ ...({} as any), url: 'https://a.example/', domain: 'd', key: 'k', proxy: true }).proxy, 'on');
});

test('geo rows: a country name or code in any case is saved as its ISO 3166-1 code; anything else is refused', () => {
  const url = 'https://a.example/';
  const named = formToBody({ url, geo_country_0: 'Germany', geo_url_0: 'https://a.example/de', geo_country_1: 'fra', geo_url_1: 'https://a.example/fr', geo_country_2: 'us', geo_url_2: 'https://a.example/us' }, 'create');
  assert.equal(named.ok, true, JSON.stringify(named));
  assert.deepEqual((named as { input: { geo: unknown } }).input.geo, { DE: 'https://a.example/de', FR: 'https://a.example/fr', US: 'https://a.example/us' });

  const typo = formToBody({ url, geo_country_0: 'Germny', geo_url_0: 'https://a.example/de', geo_country_1: 'UK', geo_url_1: 'https://a.example/uk' }, 'create');
  assert.equal(typo.ok, false, 'a rule that could never match is not saved');
  assert.match((typo as { errors: { geo?: string } }).errors.geo!, /^“Germny”, “UK” are not countries: type a country's name/);

  const noCountry = formToBody({ url, geo_country_0: '', geo_url_0: 'https://a.example/x' }, 'edit');
  assert.equal(noCountry.ok, false);
  assert.match((noCountry as { errors: { geo?: string } }).errors.geo!, /Choose the country of every row/);
});

/** The builder's form ↔ body mapping (link-form.ts): pure, no database. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorsOf, formToBody, formToRawBody, geoRowCount, linkToForm } from './link-form.js';

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
  assert.match((parsed as { errors: { variants?: string } }).errors.variants!, /testVariants\[1\]\.percentage/);
  assert.equal(geoRowCount({ geo_country_0: 'US', geo_url_0: 'x' }), 3);
});

test('a refusal is printed at the field it names, or by what it is about', () => {
  assert.deepEqual(Object.keys(errorsOf('custom: geo.US: Invalid URL')), ['geo']);
  assert.deepEqual(Object.keys(errorsOf('invalid_type: utm_source: Expected string')), ['utm']);
  assert.deepEqual(Object.keys(errorsOf('too_big: title: Too long')), ['preview']);
  assert.deepEqual(Object.keys(errorsOf('Duplicate key: This short link already exists.')), ['key']);
  assert.deepEqual(Object.keys(errorsOf('Domain does not belong to workspace.')), ['domain']);
  assert.deepEqual(Object.keys(errorsOf('Invalid tagIds detected: t9')), ['tags']);
  assert.deepEqual(Object.keys(errorsOf('Folder not found.')), ['folderId']);
  assert.deepEqual(Object.keys(errorsOf('Conversion tracking must be enabled to use A/B testing.')), ['variants']);
  assert.deepEqual(Object.keys(errorsOf('Missing destination URL')), ['url']);
  assert.deepEqual(Object.keys(errorsOf('You can only use password protection and link expiration on a Pro plan and above. Upgrade to Pro to use these features.')), ['form']);
  assert.deepEqual(Object.keys(errorsOf("You've reached your monthly limit of 25 links on the Free plan. Please upgrade for higher limits.")), ['form']);
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

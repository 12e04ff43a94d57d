import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFilters, parseMetadataQuery, parseValueFilter } from './filters.js';

test('advanced syntax: one value, any of, none of', () => {
  assert.deepEqual(parseValueFilter('US'), { op: 'in', values: ['US'] });
  assert.deepEqual(parseValueFilter('US,BR, FR,US'), { op: 'in', values: ['US', 'BR', 'FR'] });
  assert.deepEqual(parseValueFilter('-US,BR'), { op: 'notIn', values: ['US', 'BR'] });
  assert.equal(parseValueFilter(''), undefined);
  assert.equal(parseValueFilter(undefined), undefined);
});

test('metadata query: the published form, variants, and plain text', () => {
  assert.deepEqual(parseMetadataQuery("metadata['plan']:'pro'"), { key: 'plan', value: 'pro' });
  assert.deepEqual(parseMetadataQuery('metadata["plan"]:"pro plus"'), { key: 'plan', value: 'pro plus' });
  assert.deepEqual(parseMetadataQuery('metadata.seats:3'), { key: 'seats', value: '3' });
  assert.deepEqual(parseMetadataQuery("metadata['a.b']:x"), { key: 'a.b', value: 'x' });
  assert.deepEqual(parseMetadataQuery('enterprise'), { text: 'enterprise' });
  assert.equal(parseMetadataQuery('  '), undefined);
});

test('filters: normalisation and families', () => {
  const f = parseFilters({
    country: 'us,de',
    continent: 'eu',
    region: 'us-ca',
    device: 'mobile',
    refererUrl: 'https://google.com/search?q=1',
    qr: true,
    tagIds: 'tag_1',
    tagId: 'tag_2',
    domain: 'Go.Test',
    groupId: 'grp_1',
    query: "metadata['plan']:'pro'",
    saleType: 'new',
  });
  assert.deepEqual(
    f.dims.map((d) => [d.column, d.filter.op, d.filter.values.join(','), d.mode]),
    [
      ['continent', 'in', 'EU', 'exact'],
      ['country', 'in', 'US,DE', 'exact'],
      ['region', 'in', 'US-CA', 'region'],
      ['device', 'in', 'mobile', 'ci'],
      ['referer_url', 'in', 'https://google.com/search', 'withoutQuery'],
      ['trigger', 'in', 'qr', 'exact'],
    ],
  );
  assert.deepEqual(f.links.tagIds, { op: 'in', values: ['tag_1', 'tag_2'] });
  assert.deepEqual(f.links.domain, { op: 'in', values: ['go.test'] });
  assert.equal(f.links.matchesNothing, true);
  assert.deepEqual(f.metadata, { key: 'plan', value: 'pro' });
  assert.equal(f.saleType, 'new');
  assert.equal(f.lookup, undefined);

  assert.deepEqual(parseFilters({ domain: 'go.test', key: 'abc' }).lookup, { domain: 'go.test', key: 'abc' });
  assert.deepEqual(parseFilters({ externalId: 'ext_42', domain: 'go.test' }).lookup, { externalId: 'ext_42' });
  // qr=false keeps everything but QR scans
  assert.deepEqual(parseFilters({ qr: false }).dims[0]!.filter, { op: 'notIn', values: ['qr'] });
});

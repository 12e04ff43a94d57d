import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseDailyDim, planParts, type PlanRequest } from './planner.js';

const H = 3_600_000;
const D = 24 * H;
const base: PlanRequest = {
  from: 10 * D + 5 * H + 123,
  to: 40 * D + 2 * H,
  group: [],
  dims: [],
  linkMode: 'workspace',
  hasExcluded: false,
  rawOnly: false,
  useRollups: true,
};
const brief = (parts: ReturnType<typeof planParts>) =>
  parts.map((p) => `${p.source}${'dim' in p ? `:${p.dim}` : ''}${'links' in p && p.links === 'excluded' ? ':excluded' : ''} ${p.sign > 0 ? '+' : '-'}[${p.from},${p.to})`);

test('count: hourly middle, raw edges to the hour', () => {
  assert.deepEqual(brief(planParts(base)), [
    `hourly +[${10 * D + 6 * H},${40 * D + 2 * H})`,
    `raw +[${base.from},${10 * D + 6 * H})`,
  ]);
});

test('a grouping uses the smallest daily tuple that holds its columns and filters; raw edges to the day', () => {
  const parts = planParts({ ...base, group: ['referer'], dims: [{ column: 'device', filter: { op: 'in', values: ['Mobile'] }, mode: 'ci' }] });
  assert.deepEqual(brief(parts), [`daily:ref +[${11 * D},${40 * D})`, `raw +[${base.from},${11 * D})`, `raw +[${40 * D},${base.to})`]);
  assert.equal(chooseDailyDim(['country'], 'workspace'), 'country');
  assert.equal(chooseDailyDim(['country', 'region'], 'workspace'), 'city');
  assert.equal(chooseDailyDim(['browser', 'device'], 'workspace'), 'ua');
  assert.equal(chooseDailyDim(['url', 'utm_source'], 'workspace'), 'link');
  assert.equal(chooseDailyDim(['country'], 'set'), undefined);
  assert.equal(chooseDailyDim(['link_id', 'domain'], 'set'), 'link');
  assert.equal(chooseDailyDim(['country', 'browser'], 'workspace'), undefined);
});

test('left-out links are subtracted over the rollup span, except on the link tuple which filters them by id', () => {
  const ex = { ...base, hasExcluded: true };
  assert.deepEqual(brief(planParts({ ...ex, group: ['country'] })).at(-1), `raw:excluded -[${11 * D},${40 * D})`);
  assert.equal(brief(planParts({ ...ex, group: ['link_id'] })).filter((p) => p.includes('excluded')).length, 0);
});

test('raw only: conversion filters, rollups off, a tuple-less filter mix, a too-short range', () => {
  assert.deepEqual(brief(planParts({ ...base, rawOnly: true })), [`raw +[${base.from},${base.to})`]);
  assert.deepEqual(brief(planParts({ ...base, useRollups: false })), [`raw +[${base.from},${base.to})`]);
  const mix = { ...base, group: ['country'] as const, dims: [{ column: 'browser' as const, filter: { op: 'in' as const, values: ['Chrome'] }, mode: 'ci' as const }] };
  assert.equal(planParts(mix).length, 1);
  assert.equal(planParts({ ...base, group: ['country'], from: 10 * D + H, to: 10 * D + 20 * H })[0]!.source, 'raw');
});

test('timeseries: a rollup only when every bucket boundary is aligned to its grain', () => {
  // Los Angeles day boundaries (07:00Z) are whole hours: hourly totals serve an unfiltered series.
  const la = [11 * D + 7 * H, 12 * D + 7 * H];
  assert.equal(planParts({ ...base, boundaries: la })[0]!.source, 'hourly');
  // …but not a filtered one (daily rows cannot be cut at 07:00): raw.
  assert.equal(planParts({ ...base, boundaries: la, group: [], dims: [{ column: 'country', filter: { op: 'in', values: ['US'] }, mode: 'exact' }] })[0]!.source, 'raw');
  // UTC days: the daily tuple serves a filtered series.
  assert.equal(planParts({ ...base, boundaries: [11 * D, 12 * D], dims: [{ column: 'country', filter: { op: 'in', values: ['US'] }, mode: 'exact' }] })[0]!.source, 'daily');
  // India's +05:30 days: nothing aligned, raw.
  assert.equal(planParts({ ...base, boundaries: [11 * D + 18.5 * H] })[0]!.source, 'raw');
});

/**
 * Query parameters → a normalised filter description (pure). Three families:
 * - link filters (`linkId`, `domain`, tags, folder, tenant …): resolved to a set of links;
 * - dimension filters on event columns (`country`, `device`, `referer` …): SQL conditions that
 *   rollups can also apply when their tuple holds the column;
 * - conversion filters (`customerId`, `saleType`, `query`, `ref`): raw scans only.
 *
 * Most values accept the published "advanced" syntax: `a`, `a,b` (any of) and `-a,b` (none of).
 */
import { ApiError } from '../http/errors.js';
import { stripQuery, type DimColumn, type DimFilter, type LinkFilters, type MatchMode, type MetadataMatch, type ValueFilter } from '../events/index.js';
import type { FilterQuery } from './schema.js';

export type { DimFilter, LinkFilters, MatchMode, MetadataMatch, ValueFilter } from '../events/index.js';

export interface ParsedFilters {
  links: LinkFilters;
  /** A link to resolve first (then filtered by id): `domain`+`key` or `externalId`. */
  lookup?: { domain: string; key: string } | { externalId: string };
  dims: DimFilter[];
  customerId?: string;
  saleType?: 'new' | 'recurring';
  metadata?: MetadataMatch;
  /** `ref` query parameter of the destination URL. */
  ref?: string;
}

/** Parses the advanced syntax; empty items are dropped, `undefined` when nothing is left. */
export function parseValueFilter(raw: string | undefined): ValueFilter | undefined {
  if (raw === undefined) return undefined;
  const negated = raw.startsWith('-');
  const values = (negated ? raw.slice(1) : raw)
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (!values.length) return undefined;
  return { op: negated ? 'notIn' : 'in', values: [...new Set(values)] };
}

function mapValues(f: ValueFilter | undefined, fn: (v: string) => string): ValueFilter | undefined {
  return f && { op: f.op, values: [...new Set(f.values.map(fn))] };
}

/** Parses the `query` parameter (behaviour.md §7.1: `metadata['key']:'value'`). */
export function parseMetadataQuery(query: string | undefined): MetadataMatch | undefined {
  if (query === undefined || query.trim() === '') return undefined;
  const m = /^\s*metadata\s*(?:\[\s*(['"])(.+?)\1\s*\]|\.([\w-]+))\s*:\s*(?:(['"])(.*)\4|(.*?))\s*$/s.exec(query);
  if (m) return { key: m[2] ?? m[3]!, value: m[5] ?? m[6]! };
  return { text: query.trim() };
}

const utmColumns = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

/** Normalises every filter parameter. Throws 422 for values that can never match a rule. */
export function parseFilters(q: FilterQuery): ParsedFilters {
  const links: LinkFilters = {
    ids: parseValueFilter(q.linkId),
    tenantId: parseValueFilter(q.tenantId),
    programId: parseValueFilter(q.programId),
    partnerId: parseValueFilter(q.partnerId),
    folderId: parseValueFilter(q.folderId),
    // `tagIds` (spec) and the deprecated `tagId` name the same filter.
    tagIds: parseValueFilter([q.tagIds, q.tagId].filter((v) => v !== undefined).join(',') || undefined),
    root: q.root,
  };
  if (parseValueFilter(q.groupId)?.op === 'in' || parseValueFilter(q.partnerTagId)?.op === 'in') links.matchesNothing = true;

  let lookup: ParsedFilters['lookup'];
  if (q.externalId) lookup = { externalId: q.externalId };
  else if (q.domain && q.key !== undefined && !q.domain.includes(',') && !q.domain.startsWith('-')) lookup = { domain: q.domain, key: q.key };
  else links.domain = mapValues(parseValueFilter(q.domain), (d) => d.toLowerCase());

  const dims: DimFilter[] = [];
  const add = (column: DimColumn, filter: ValueFilter | undefined, mode: MatchMode = 'exact') => {
    if (filter) dims.push({ column, filter, mode });
  };
  add('continent', mapValues(parseValueFilter(q.continent), (v) => v.toUpperCase()));
  add('country', mapValues(parseValueFilter(q.country), (v) => v.toUpperCase()));
  add('region', mapValues(parseValueFilter(q.region), (v) => v.toUpperCase()), 'region');
  add('city', parseValueFilter(q.city));
  add('device', parseValueFilter(q.device), 'ci');
  add('browser', parseValueFilter(q.browser), 'ci');
  add('os', parseValueFilter(q.os), 'ci');
  add('referer', parseValueFilter(q.referer));
  add('referer_url', mapValues(parseValueFilter(q.refererUrl), stripQuery), 'withoutQuery');
  add('url', parseValueFilter(q.url));
  for (const c of utmColumns) add(c, parseValueFilter(q[c]));

  const trigger = mapValues(parseValueFilter(q.trigger), (v) => v.toLowerCase());
  if (trigger) add('trigger', trigger);
  // Deprecated `qr`: true → QR scans only, false → everything but QR scans.
  if (q.qr !== undefined) add('trigger', { op: q.qr ? 'in' : 'notIn', values: ['qr'] });

  if (q.customerId !== undefined && q.customerId.trim() === '') {
    throw new ApiError('unprocessable_entity', 'too_small: customerId: customerId must not be empty');
  }
  return {
    links,
    lookup,
    dims,
    customerId: q.customerId,
    saleType: q.saleType,
    metadata: parseMetadataQuery(q.query),
    ref: q.ref,
  };
}

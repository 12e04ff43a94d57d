/**
 * One CSV record → the `POST /links` body it stands for (plus the creation time to keep). Only
 * the shape is handled here (which column, the short link split into domain and key, tag lists,
 * dates); whether the link is acceptable is decided by the links module's rules.
 *
 * @example
 * toLinkInput(['https://bit.ly/abc', 'https://example.com'], { shortLink: 0, url: 1 })
 * // { input: { url: 'https://example.com', domain: 'bit.ly', key: 'abc' } }
 */
import { parseIsoDate } from '../links/schema.js';
import { restoreFormula } from '../spreadsheet-formulas.js';
import type { ColumnMap } from './layouts.js';

export type RowInput = { input: Record<string, unknown>; createdAt?: number } | { error: string };

/** Tags in one cell: separated by commas, pipes or semicolons (exports differ). */
export function splitTags(cell: string): string[] {
  return [...new Set(cell.split(/[,|;]/).map((t) => t.trim()).filter(Boolean))];
}

/**
 * Milliseconds from a creation date as exports write it: ISO-8601 (with or without `T`, an offset
 * after a space), or a Unix time in seconds or milliseconds. NaN when it is none of those.
 */
export function parseCreated(cell: string): number {
  const v = cell.trim();
  if (/^\d{9,13}$/.test(v)) return Number(v) * (v.length <= 11 ? 1000 : 1);
  return parseIsoDate(v.replace(/\s+(Z|[+-]\d{2}:?\d{2})$/i, '$1').replace(/\s*UTC$/i, 'Z'));
}

/** `https://go.example.com/abc` or `go.example.com/abc` → domain and key; undefined when it is not a short link. */
export function splitShortLink(cell: string): { domain: string; key: string } | undefined {
  const v = cell.trim();
  if (!v) return undefined;
  try {
    const u = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `https://${v}`);
    const key = decodeURIComponent(u.pathname.replace(/^\//, ''));
    return key ? { domain: u.hostname, key } : undefined;
  } catch {
    return undefined;
  }
}

export function toLinkInput(record: readonly string[], columns: ColumnMap): RowInput {
  const cell = (field: keyof ColumnMap): string | undefined => {
    const at = columns[field];
    const v = at === undefined ? undefined : record[at]?.trim();
    // Exports neutralise formula cells with a leading `'` (../spreadsheet-formulas.ts): read back the value it was made from.
    return v ? restoreFormula(v) : undefined;
  };
  const input: Record<string, unknown> = { url: cell('url') ?? '' };
  const short = cell('shortLink') ? splitShortLink(cell('shortLink')!) : undefined;
  const domain = cell('domain') ?? short?.domain;
  const key = cell('key') ?? short?.key;
  if (domain) input.domain = domain;
  if (key) input.key = key;
  for (const field of ['title', 'description', 'externalId'] as const) {
    const v = cell(field);
    if (v) input[field] = v;
  }
  const tags = cell('tags');
  if (tags) input.tagNames = splitTags(tags);
  const created = cell('createdAt');
  if (!created) return { input };
  const createdAt = parseCreated(created);
  if (Number.isNaN(createdAt)) return { error: `Invalid created date "${created.slice(0, 64)}": give an ISO-8601 date or a Unix time.` };
  return { input, createdAt };
}

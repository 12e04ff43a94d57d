/**
 * The column layouts of link exports that an import recognises from the header row, and the
 * explicit mapping (`field=Header`) that overrides or completes them. A layout is recognised by
 * a few signature columns; every column is then mapped through one table of header aliases,
 * compared without regard to case, spaces or punctuation ("Long URL" = "long_url" = "longUrl").
 *
 * @example
 * const { layout, columns } = resolveColumns(['Created', 'Title', 'Link', 'Long URL', 'Tags'], {});
 * // layout === 'bitly', columns.url === 3, columns.shortLink === 2
 */
import { ApiError } from '../http/errors.js';

/** What a column can carry into a link. `shortLink` is a full short URL (domain and key are taken from it). */
export const IMPORT_FIELDS = ['url', 'key', 'domain', 'shortLink', 'title', 'description', 'tags', 'createdAt', 'externalId'] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

export type LayoutName = 'dub' | 'bitly' | 'shlink' | 'yourls' | 'kutt' | 'generic';

/** Column index of each field found in the header. */
export type ColumnMap = Partial<Record<ImportField, number>>;

/** Header aliases, normalised (lower case, letters and digits only). */
const ALIASES: Record<ImportField, readonly string[]> = {
  url: ['url', 'longurl', 'destination', 'destinationurl', 'target', 'targeturl', 'originalurl', 'longlink'],
  key: ['key', 'slug', 'shortcode', 'keyword', 'address', 'backhalf', 'customslug', 'alias'],
  domain: ['domain', 'domainname', 'hostname'],
  shortLink: ['shortlink', 'shorturl', 'bitlink', 'link', 'shortenedurl', 'shortenedlink'],
  title: ['title', 'linktitle', 'name'],
  description: ['description'],
  tags: ['tags', 'tag', 'tagnames'],
  createdAt: ['created', 'createdat', 'creationdate', 'datecreated', 'createdon', 'date', 'timestamp'],
  externalId: ['externalid'],
};

export const normaliseHeader = (h: string) => h.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Signature columns of each known export, checked in this order (the first match wins). */
const SIGNATURES: readonly { layout: Exclude<LayoutName, 'generic'>; all: readonly string[] }[] = [
  // Dub's links export: the API's link fields (id, domain, key, shortLink, url, …).
  { layout: 'dub', all: ['domain', 'key', 'shortlink', 'url'] },
  // Bitly's link export: the short link as `link`/`bitlink` beside `long_url`.
  { layout: 'bitly', all: ['longurl', 'bitlink'] },
  { layout: 'bitly', all: ['longurl', 'link'] },
  // Shlink (web client's CSV): createdAt, shortUrl, longUrl, title, tags, visits.
  { layout: 'shlink', all: ['shorturl', 'longurl'] },
  // YOURLS' URL table: keyword, url, title, timestamp, ip, clicks.
  { layout: 'yourls', all: ['keyword', 'url'] },
  // Kutt: address (the key), target (the destination), link, domain, description, created_at.
  { layout: 'kutt', all: ['address', 'target'] },
];

/**
 * Which column carries each field: the header's recognised columns, then the explicit mapping
 * (`{field: header}`) on top. Throws a 422 when a mapping names an unknown field or header, or
 * when no column gives the destination URL.
 */
export function resolveColumns(header: readonly string[], mapping: Readonly<Record<string, string>>): { layout: LayoutName; columns: ColumnMap } {
  const normalised = header.map(normaliseHeader);
  const present = new Set(normalised);
  const layout = SIGNATURES.find((s) => s.all.every((h) => present.has(h)))?.layout ?? 'generic';
  const columns: ColumnMap = {};
  for (const field of IMPORT_FIELDS) {
    // The first alias that is present wins ("url" before "target" when a file has both).
    for (const alias of ALIASES[field]) {
      const at = normalised.indexOf(alias);
      if (at >= 0) {
        columns[field] = at;
        break;
      }
    }
  }
  // A file with a domain and a key needs no short link; a bare `link` column is then ignored.
  for (const [field, wanted] of Object.entries(mapping)) {
    if (!(IMPORT_FIELDS as readonly string[]).includes(field)) {
      throw new ApiError('unprocessable_entity', `Unknown import field "${field}" in the mapping: use one of ${IMPORT_FIELDS.join(', ')}.`);
    }
    const at = header.findIndex((h) => h.trim().toLowerCase() === wanted.trim().toLowerCase());
    if (at < 0) throw new ApiError('unprocessable_entity', `The mapping names the column "${wanted}", which the CSV header does not have.`);
    columns[field as ImportField] = at;
  }
  if (columns.url === undefined) {
    throw new ApiError(
      'unprocessable_entity',
      'The CSV header has no destination URL column (url, long url, destination, target): name it with a mapping, for example map=url=Long URL.',
    );
  }
  return { layout, columns };
}

/**
 * `field=Header` pairs (the CLI's `--map`, the API's `map` query parameter) → `{field: header}`.
 *
 * @example
 * parseMappingPairs(['url=Long URL', 'key=Back-half']) // { url: 'Long URL', key: 'Back-half' }
 */
export function parseMappingPairs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1) throw new ApiError('unprocessable_entity', `Invalid mapping "${pair}": write field=Header, for example url=Long URL.`);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

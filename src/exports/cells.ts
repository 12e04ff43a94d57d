/**
 * The columns of each export and how a value becomes a CSV cell. Column names are the API's
 * field names (nested ones as `customer.email`), so an export reads like the JSON it mirrors, and
 * a links export can be imported again (its header is the Dub layout of src/imports/).
 *
 * Row builders return the values as they are; `csvStream` (streams.ts), which every CSV writer
 * uses, turns each into its cell with `cellOf`, the one place where text is neutralised for
 * spreadsheets (../spreadsheet-formulas.ts).
 *
 * @example
 * cellOf(get({ click: { id: 'c1' } }, 'click.id')) // 'c1'
 * cellOf('=1+1')                                    // "'=1+1"
 * cellOf(-12.5)                                     // '-12.5'
 */
import { LinkResponse } from '../links/response.js';
import { neutraliseFormula } from '../spreadsheet-formulas.js';

/**
 * `true`/`false`, `''` for null, lists comma-joined, objects as JSON. Text is neutralised (a
 * leading `=`, `+`, `-`, `@`, tab or CR gets a `'`); numbers are not: the text of a JavaScript
 * number (`-12.5`, `1e+21`) cannot hold a formula, and a negative amount stays a number in the
 * spreadsheet instead of turning into the text `'-12.5`.
 */
export function cellOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return neutraliseFormula(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return neutraliseFormula(value.join(','));
  // JSON of an object or a list begins with `{` or `[`.
  return JSON.stringify(value);
}

/** The value at a dotted path (`link.shortLink`), or at its parts. */
export function get(record: unknown, path: string | readonly string[]): unknown {
  let v: unknown = record;
  for (const part of typeof path === 'string' ? path.split('.') : path) v = v === null || v === undefined ? undefined : (v as Record<string, unknown>)[part];
  return v;
}

/**
 * Left out of link exports: deprecated aliases the list answers too (`tagId`, `projectId`,
 * `identifier`), and `password`. An export travels (spreadsheets, mail, other tools) and any role
 * may download one, viewers included, who may not open a link's edit page: a link's password
 * stays in the API's own link answers (as published) and the builder, never in a file.
 */
const LEFT_OUT = new Set(['tagId', 'projectId', 'identifier', 'password']);

/** Every field of a link but those left out, in the response's order; `tags` holds the tag names. */
export const LINK_COLUMNS: readonly string[] = Object.keys(LinkResponse.shape).filter((k) => !LEFT_OUT.has(k));

/** A link as exports carry it: without its password. */
export function exportedLink<L extends { password?: unknown }>(link: L): Omit<L, 'password'> {
  const { password: _password, ...rest } = link;
  return rest;
}

type WithoutLinkPassword<E> = E extends { link: infer L extends { password?: unknown } } ? Omit<E, 'link'> & { link: Omit<L, 'password'> } : E;

/** An event as exports carry it: its link without the password. */
export function exportedEvent<E extends { link: { password?: unknown } }>(event: E): WithoutLinkPassword<E> {
  return { ...event, link: exportedLink(event.link) } as WithoutLinkPassword<E>;
}
export type ExportedEvent<E> = WithoutLinkPassword<E>;

/** A link response as the values of a CSV row; `tags` as the tag names. */
export function linkRow(link: Record<string, unknown>): unknown[] {
  return LINK_COLUMNS.map((c) => (c === 'tags' ? ((link.tags as { name: string }[] | null) ?? []).map((t) => t.name) : link[c]));
}

/** An event record as the values of a CSV row of `columns` (the paths split once, not per row). */
export function eventRow(columns: readonly string[]): (event: unknown) => unknown[] {
  const paths = columns.map((c) => c.split('.'));
  return (event) => paths.map((p) => get(event, p));
}

const CLICK = ['timestamp', 'click.id', 'link.id', 'domain', 'key', 'link.shortLink', 'click.url', 'country', 'click.city', 'click.region', 'continent', 'device', 'browser', 'os', 'click.trigger', 'click.referer', 'click.refererUrl', 'click.qr', 'ip'];
const CONVERSION = ['eventId', 'eventName', 'customer.id', 'customer.externalId', 'customer.name', 'customer.email', 'customer.country', 'metadata'];
const SALE = ['sale.amount', 'sale.currency', 'sale.invoiceId', 'sale.paymentProcessor'];

/** Columns of an events export, by event kind. */
export const EVENT_COLUMNS: Record<'clicks' | 'leads' | 'sales', readonly string[]> = {
  clicks: CLICK,
  leads: [...CLICK, ...CONVERSION],
  sales: [...CLICK, ...CONVERSION, ...SALE],
};

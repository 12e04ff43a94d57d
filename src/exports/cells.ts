/**
 * The columns of each export and how a value becomes a CSV cell. Column names are the API's
 * field names (nested ones as `customer.email`), so an export reads like the JSON it mirrors, and
 * a links export can be imported again (its header is the Dub layout of src/imports/).
 *
 * @example
 * cellOf(get({ click: { id: 'c1' } }, 'click.id')) // 'c1'
 */
import { LinkResponse } from '../links/response.js';

/** `true`/`false`, `''` for null, lists comma-joined, objects as JSON. */
export function cellOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',');
  return JSON.stringify(value);
}

/** The value at a dotted path (`link.shortLink`). */
export function get(record: unknown, path: string): unknown {
  let v: unknown = record;
  for (const part of path.split('.')) v = v === null || v === undefined ? undefined : (v as Record<string, unknown>)[part];
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

/** A link response as a CSV row. */
export function linkRow(link: Record<string, unknown>): string[] {
  return LINK_COLUMNS.map((c) => (c === 'tags' ? ((link.tags as { name: string }[] | null) ?? []).map((t) => t.name).join(',') : cellOf(link[c])));
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

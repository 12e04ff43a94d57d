/**
 * The link builder's form, both ways: a link (the API's response) → the form's fields, and the
 * submitted fields → the body POST /links or PATCH /links/{id} take, validated by the API's own
 * schemas. A refusal (zod's `rule: field: message` or a service ApiError) is mapped to the field
 * it concerns, so the page can print it there. Pure functions, no I/O.
 *
 * Field names (the browser tests use them): url, domain, key, utm_source … utm_content,
 * tag_<tagId> (checkbox), folderId, expiresAt (UTC, `YYYY-MM-DDTHH:MM`), expiredUrl, password,
 * ios, android, geo_country_<i> / geo_url_<i>, variant_url_<i> / variant_percentage_<i>,
 * trackConversion, proxy ("Custom link preview": saved only with a title, description or image),
 * publicStats ("Share stats"), publicConversions (shown on the shared page; the
 * route saves it, as it is no field of the API's link), title, description, image.
 *
 * @example
 * const body = formToBody({ url: 'https://a.example', utm_source: 'news', tag_tag_1: 'on' }, 'create');
 * // { ok: true, input: { url: 'https://a.example', utm_source: 'news', tagIds: ['tag_1'], … } }
 */
import { ApiError, formatZodError } from '../http/errors.js';
import { CreateLinkBody, UpdateLinkBody, type CreateLinkInput, type LinkResponse, type UpdateLinkInput } from '../links/schema.js';
import { UTM_COLUMNS } from '../links/urls.js';
import { countryCodeOf, isCountryCode } from './countries.js';

export type FormValues = Record<string, string>;

/** Where a message is printed: a field of the form, or `form` (above it). */
export type ErrorField = 'url' | 'domain' | 'key' | 'utm' | 'tags' | 'folderId' | 'expiresAt' | 'expiredUrl' | 'password' | 'ios' | 'android' | 'geo' | 'variants' | 'preview' | 'form';
export type FieldErrors = Partial<Record<ErrorField, string>>;

/** Geo rows shown: the link's, plus blank ones to fill without JavaScript. */
export const GEO_BLANK_ROWS = 2;
/** Variants allowed by the API (testVariants: 2 to 4). */
export const VARIANT_ROWS = 4;

const TEXT_FIELDS = ['url', 'domain', 'key', 'expiredUrl', 'password', 'ios', 'android', 'title', 'description', 'image', 'folderId'] as const;

/** `2030-01-31T10:00` (the datetime-local format, read as UTC) from an ISO date. */
function toLocalInput(iso: string | null): string {
  return iso ? iso.slice(0, 16) : '';
}

/** The form's fields for an existing link (the edit page). */
export function linkToForm(link: LinkResponse): FormValues {
  const v: FormValues = { url: link.url, domain: link.domain, key: link.key };
  for (const f of ['expiredUrl', 'password', 'ios', 'android', 'title', 'description', 'image', 'folderId'] as const) v[f] = link[f] ?? '';
  for (const c of UTM_COLUMNS) v[c] = link[c] ?? '';
  v.expiresAt = toLocalInput(link.expiresAt);
  if (link.trackConversion) v.trackConversion = 'on';
  if (link.publicStats) v.publicStats = 'on';
  if (link.proxy) v.proxy = 'on';
  for (const t of link.tags ?? []) v[`tag_${t.id}`] = 'on';
  Object.entries(link.geo ?? {}).forEach(([country, url], i) => {
    v[`geo_country_${i}`] = country;
    v[`geo_url_${i}`] = url;
  });
  (link.testVariants ?? []).forEach((t, i) => {
    v[`variant_url_${i}`] = t.url;
    v[`variant_percentage_${i}`] = String(t.percentage);
  });
  return v;
}

/** How many geo rows the form has: each filled one plus blanks. */
export function geoRowCount(values: FormValues): number {
  let n = 0;
  while (`geo_country_${n}` in values || `geo_url_${n}` in values) n++;
  return Math.min(n + GEO_BLANK_ROWS, 250);
}

/** The body the API would receive for these fields (unvalidated). */
export function formToRawBody(values: FormValues, mode: 'create' | 'edit'): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const text = (name: string) => (values[name] ?? '').trim();
  for (const f of TEXT_FIELDS) {
    const value = f === 'password' ? (values[f] ?? '') : text(f);
    // On create an empty field is left out (defaults apply); on edit it clears the value.
    if (value !== '') body[f] = value;
    else if (mode === 'edit' && f !== 'domain' && f !== 'key' && f !== 'url') body[f] = null;
  }
  if (mode === 'edit' || body.url === undefined) body.url = text('url');
  // A UTM field left empty on create keeps whatever the pasted URL carries; on edit it removes it.
  for (const c of UTM_COLUMNS) {
    const value = text(c);
    if (value !== '') body[c] = value;
    else if (mode === 'edit') body[c] = null;
  }
  body.expiresAt = text('expiresAt') === '' ? (mode === 'edit' ? null : undefined) : text('expiresAt');
  body.trackConversion = values.trackConversion === 'on' || values.trackConversion === 'true';
  // "Share stats"; whether the shared page shows conversions is the route's (not in the API's link).
  // "Custom link preview": crawlers get the card only when it has something to show.
  const previewFilled = ['title', 'description', 'image'].some((f) => text(f) !== '');
  const proxy = (values.proxy === 'on' || values.proxy === 'true') && previewFilled;
  if (proxy || mode === 'edit') body.proxy = proxy;
  const shared = values.publicStats === 'on' || values.publicStats === 'true';
  if (shared || mode === 'edit') body.publicStats = shared;
  body.tagIds = Object.keys(values)
    .filter((k) => k.startsWith('tag_') && values[k])
    .map((k) => k.slice(4));
  const geo: Record<string, string> = {};
  for (let i = 0; `geo_country_${i}` in values || `geo_url_${i}` in values; i++) {
    // A name or code typed in any case is saved as its ISO code; anything else stays as typed, for geoErrors to refuse.
    const typed = text(`geo_country_${i}`);
    const country = countryCodeOf(typed) ?? typed;
    const url = text(`geo_url_${i}`);
    if (country || url) geo[country] = url;
  }
  body.geo = Object.keys(geo).length ? geo : null;
  const variants: { url: string; percentage: unknown }[] = [];
  for (let i = 0; i < VARIANT_ROWS; i++) {
    const url = text(`variant_url_${i}`);
    const pct = text(`variant_percentage_${i}`);
    if (!url && !pct) continue;
    // A number when it reads as one; otherwise the text, for the schema to refuse at its row.
    variants.push({ url, percentage: pct !== '' && Number.isFinite(Number(pct)) ? Number(pct) : pct });
  }
  body.testVariants = variants.length ? variants : null;
  if (mode === 'create') for (const k of Object.keys(body)) if (body[k] === undefined || body[k] === null) delete body[k];
  return body;
}

export type Parsed<T> = { ok: true; input: T } | { ok: false; errors: FieldErrors };

/** The fields validated by the API's schema (CreateLinkBody or UpdateLinkBody). */
export function formToBody(values: FormValues, mode: 'create'): Parsed<CreateLinkInput>;
export function formToBody(values: FormValues, mode: 'edit'): Parsed<UpdateLinkInput>;
export function formToBody(values: FormValues, mode: 'create' | 'edit'): Parsed<CreateLinkInput | UpdateLinkInput> {
  const raw = formToRawBody(values, mode);
  const geo = geoError(raw.geo as Record<string, string> | null | undefined);
  const parsed = (mode === 'create' ? CreateLinkBody : UpdateLinkBody).safeParse(raw);
  if (parsed.success && !geo) return { ok: true, input: parsed.data };
  const errors = parsed.success ? {} : errorsOf(formatZodError(parsed.error));
  if (geo) errors.geo = geo;
  return { ok: false, errors };
}

/**
 * The dashboard's own rule for geo rows (the API keeps its published, laxer one): each country
 * an ISO 3166-1 code, so no rule is saved that the redirect could never match.
 */
function geoError(geo: Record<string, string> | null | undefined): string | undefined {
  const keys = Object.keys(geo ?? {});
  if (keys.includes('')) return 'Choose the country of every row that has a URL.';
  const unknown = keys.filter((k) => !isCountryCode(k));
  if (!unknown.length) return undefined;
  const list = unknown.map((k) => `“${k}”`).join(', ');
  return `${list} ${unknown.length === 1 ? 'is not a country' : 'are not countries'}: type a country's name (such as Germany) or its two-letter code (DE) and pick it from the list.`;
}

/** The form field a `rule: path: message` path names (`geo.US` → geo, `testVariants[1].url` → variants). */
function fieldOfPath(path: string): ErrorField {
  const top = path.split(/[.[]/)[0] ?? '';
  if (top.startsWith('utm_')) return 'utm';
  if (top === 'testVariants' || top === 'trackConversion') return 'variants';
  if (top === 'tagIds' || top === 'tagNames') return 'tags';
  if (top === 'title' || top === 'description' || top === 'image') return 'preview';
  const known: ErrorField[] = ['url', 'domain', 'key', 'folderId', 'expiresAt', 'expiredUrl', 'password', 'ios', 'android', 'geo'];
  return (known as string[]).includes(top) ? (top as ErrorField) : 'form';
}

/** Service messages that name no path, by what they are about. */
function fieldOfMessage(message: string): ErrorField {
  // Plan and quota refusals name several features or none: above the form.
  if (/on a \w+ plan|upgrade/i.test(message)) return 'form';
  if (/A\/B testing|variant/i.test(message)) return 'variants';
  if (/destination URL/i.test(message)) return 'url';
  if (/\btag/i.test(message)) return 'tags';
  if (/folder/i.test(message)) return 'folderId';
  if (/domain/i.test(message) && !/short link|key/i.test(message)) return 'domain';
  if (/\bkey\b|short link|reserved|prefix/i.test(message)) return 'key';
  if (/expir/i.test(message)) return 'expiresAt';
  return 'form';
}

/** One message → the field it concerns. */
export function errorsOf(message: string): FieldErrors {
  const m = /^[a-z_]+: ([\w.[\]-]+): (.*)$/s.exec(message);
  if (m) return { [fieldOfPath(m[1]!)]: message };
  return { [fieldOfMessage(message)]: message };
}

/** A service refusal of the form (a 4xx ApiError) as field errors; anything else is rethrown. */
export function errorsOfApiError(err: unknown): FieldErrors {
  if (err instanceof ApiError && err.status >= 400 && err.status < 500) return errorsOf(err.message);
  throw err;
}

/**
 * The link builder's form, both ways: a link (the API's response) → the form's fields, and the
 * submitted fields → the body POST /links or PATCH /links/{id} take, validated by the API's own
 * schemas. A refusal (zod's `rule: field: message` or a service ApiError) is mapped to the field
 * it concerns, so the page can print it there. Pure functions, no I/O.
 *
 * Field names (the browser tests use them): url, domain, key, utm_source … utm_content,
 * tag_<tagId> (checkbox), folderId, expiresAtLocal (shown: the browser's time, seconds kept) and
 * expiresAt (hidden: ISO, which links.js fills from it; empty without JavaScript, when the shown
 * value is read as UTC), expiredUrl, password,
 * ios, android, geo_country_<i> / geo_url_<i>, variant_url_<i> / variant_percentage_<i>,
 * trackConversion, proxy ("Custom link preview": saved only with a title, description or image),
 * publicStats ("Share stats"), publicConversions (shown on the shared page; the
 * route saves it, as it is no field of the API's link), title, description, image.
 *
 * @example
 * const body = formToBody({ url: 'https://a.example', utm_source: 'news', tag_tag_1: 'on' }, 'create');
 * // { ok: true, input: { url: 'https://a.example', utm_source: 'news', tagIds: ['tag_1'], … } }
 */
import type { core } from 'zod';
import { ApiError } from '../http/errors.js';
import { CreateLinkBody, UpdateLinkBody, parseIsoDate, type CreateLinkInput, type LinkResponse, type UpdateLinkInput } from '../links/schema.js';
import { UTM_COLUMNS } from '../links/urls.js';
import { countryCodeOf, countryName, isCountryCode } from './countries.js';

type ZodIssue = core.$ZodIssue;

export type FormValues = Record<string, string>;

/** Where a message is printed: a field of the form, or `form` (above it). */
export type ErrorField = 'url' | 'domain' | 'key' | 'utm' | 'tags' | 'folderId' | 'expiresAt' | 'expiredUrl' | 'password' | 'ios' | 'android' | 'geo' | 'variants' | 'preview' | 'form';
export type FieldErrors = Partial<Record<ErrorField, string>>;

/** Geo rows shown: the link's, plus blank ones to fill without JavaScript. */
export const GEO_BLANK_ROWS = 2;
/** Variants allowed by the API (testVariants: 2 to 4). */
export const VARIANT_ROWS = 4;

const TEXT_FIELDS = ['url', 'domain', 'key', 'expiredUrl', 'password', 'ios', 'android', 'title', 'description', 'image', 'folderId'] as const;

/** `2030-01-31T10:00:05` (the datetime-local format, seconds kept) in UTC, from an ISO date. */
function toUtcInput(iso: string | null): string {
  return iso ? new Date(iso).toISOString().slice(0, 19) : '';
}

/**
 * The expiry the form holds: the hidden `expiresAt` (ISO, set by links.js from the browser's
 * time zone), else the visible `expiresAtLocal` read as UTC (no JavaScript).
 */
export function expiryText(values: FormValues): string {
  return (values.expiresAt ?? '').trim() || (values.expiresAtLocal ?? '').trim();
}

/** The expiry as milliseconds, when the form holds a readable one. */
export function expiryOf(values: FormValues): number | undefined {
  const text = expiryText(values);
  const ms = text ? parseIsoDate(text) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** The form's fields for an existing link (the edit page). */
export function linkToForm(link: LinkResponse): FormValues {
  const v: FormValues = { url: link.url, domain: link.domain, key: link.key };
  for (const f of ['expiredUrl', 'password', 'ios', 'android', 'title', 'description', 'image', 'folderId'] as const) v[f] = link[f] ?? '';
  for (const c of UTM_COLUMNS) v[c] = link[c] ?? '';
  // The hidden field is filled by links.js (from data-utc); the visible one shows UTC until it runs.
  v.expiresAt = link.expiresAt ?? '';
  v.expiresAtLocal = toUtcInput(link.expiresAt);
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
  const expiry = expiryText(values);
  body.expiresAt = expiry === '' ? (mode === 'edit' ? null : undefined) : expiry;
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

/** The fields validated by the API's schema (CreateLinkBody or UpdateLinkBody): every problem at once. */
export function formToBody(values: FormValues, mode: 'create'): Parsed<CreateLinkInput>;
export function formToBody(values: FormValues, mode: 'edit'): Parsed<UpdateLinkInput>;
export function formToBody(values: FormValues, mode: 'create' | 'edit'): Parsed<CreateLinkInput | UpdateLinkInput> {
  const raw = formToRawBody(values, mode);
  const geo = geoError(raw.geo as Record<string, string> | null | undefined);
  const parsed = (mode === 'create' ? CreateLinkBody : UpdateLinkBody).safeParse(raw);
  if (parsed.success && !geo) return { ok: true, input: parsed.data };
  const errors: FieldErrors = {};
  for (const issue of parsed.success ? [] : parsed.error.issues) addError(errors, fieldOfPath(issue.path), plainMessage(issue));
  if (geo) addError(errors, 'geo', geo);
  return { ok: false, errors };
}

/** Adds a message to a field's (several problems at one field are printed together). */
export function addError(errors: FieldErrors, field: ErrorField, message: string): void {
  const before = errors[field];
  if (before === message || before?.includes(message)) return;
  errors[field] = before ? `${before} ${message}` : message;
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

type Path = readonly PropertyKey[];

/** The form field a request field's path names (`geo.US` → geo, `testVariants[1].url` → variants). */
export function fieldOfPath(path: Path | string): ErrorField {
  const top = String((typeof path === 'string' ? path.split(/[.[]/) : path)[0] ?? '');
  if (top.startsWith('utm_')) return 'utm';
  if (top === 'testVariants' || top === 'trackConversion') return 'variants';
  if (top === 'tagIds' || top === 'tagNames') return 'tags';
  if (top === 'title' || top === 'description' || top === 'image') return 'preview';
  if (top === 'prefix') return 'key';
  const known: ErrorField[] = ['url', 'domain', 'key', 'folderId', 'expiresAt', 'expiredUrl', 'password', 'ios', 'android', 'geo'];
  return (known as string[]).includes(top) ? (top as ErrorField) : 'form';
}

const LABELS: Record<string, string> = {
  url: 'The destination URL',
  domain: 'The domain',
  key: 'The key',
  expiresAt: 'The expiry date',
  expiredUrl: 'The address after expiry',
  password: 'The password',
  ios: 'The iOS destination',
  android: 'The Android destination',
  title: 'The preview title',
  description: 'The preview description',
  image: 'The preview image',
  testVariants: 'The A/B test',
  utm_source: 'The UTM source',
  utm_medium: 'The UTM medium',
  utm_campaign: 'The UTM campaign',
  utm_term: 'The UTM term',
  utm_content: 'The UTM content',
};
/** Fields whose custom rule is "an http(s) address". */
const URL_FIELDS = new Set(['url', 'expiredUrl', 'ios', 'android']);

/** What a field is called in a sentence. */
function labelOf(path: Path): string {
  const [top, a, b] = path.map(String);
  if (top === 'geo' && a) return `The URL for ${countryName(a)}`;
  if (top === 'testVariants' && a !== undefined && /^\d+$/.test(a)) return `Variant ${Number(a) + 1}'s ${b === 'percentage' ? 'share' : 'URL'}`;
  return LABELS[top ?? ''] ?? `The field ${path.map(String).join('.')}`;
}

/** A schema problem as a sentence for the person filling the form (not the API's developer wording). */
function plainMessage(issue: ZodIssue): string {
  const label = labelOf(issue.path);
  const top = String(issue.path[0] ?? '');
  const limit = (issue as { maximum?: number | bigint; minimum?: number | bigint }).maximum ?? (issue as { minimum?: number | bigint }).minimum;
  const origin = (issue as { origin?: string }).origin;
  switch (issue.code) {
    case 'too_big':
      if (origin === 'string') return `${label} is too long: at most ${limit} characters.`;
      if (origin === 'array' || origin === 'set') return `${label} takes at most ${limit}.`;
      return `${label} can be at most ${limit}.`;
    case 'too_small':
      if (origin === 'string') return `${label} is too short: at least ${limit} characters.`;
      if (origin === 'array' || origin === 'set') return `${label} needs at least ${limit}${top === 'testVariants' ? ' destinations' : ''}.`;
      return `${label} must be at least ${limit}.`;
    case 'invalid_type':
      return (issue as { expected?: string }).expected === 'number' ? `${label} must be a number.` : `${label} is missing or not valid.`;
    default: {
      if (issue.code === 'custom' && top === 'image' && issue.path.length === 1) return `${label} must be a web address starting with https:// (or http://), or an uploaded image.`;
      const isUrl =
        issue.code === 'custom' &&
        ((URL_FIELDS.has(top) && issue.path.length === 1) || (top === 'geo' && issue.path.length === 2) || (top === 'testVariants' && issue.path.at(-1) === 'url'));
      if (isUrl) return `${label} must be a web address starting with https:// (or http://).`;
      if (top === 'expiresAt') return `${label} is not a date and time: choose one in the calendar.`;
      return `${label}: ${issue.message}`;
    }
  }
}

/** A service refusal of the form (a 4xx ApiError) as field errors, by the field the error carries; anything else is rethrown. */
export function errorsOfApiError(err: unknown): FieldErrors {
  if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500) throw err;
  const field = err.field ? fieldOfPath(err.field) : 'form';
  // Ids a person never typed: say what happened instead (a tag or folder deleted meanwhile).
  if (field === 'tags' && err.status === 422) return { tags: 'A chosen tag no longer exists (deleted meanwhile?): reload the page and choose again.' };
  if (field === 'folderId' && err.status === 404) return { folderId: 'The chosen folder no longer exists (deleted meanwhile?): choose another.' };
  return { [field]: err.message };
}

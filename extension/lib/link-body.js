/**
 * The body of `POST /links` for the popup's choices: the page's URL, an optional domain and key,
 * tag ids, and a UTM template's parameters (the API merges `utm_*` fields into the destination).
 * Pure, so it is tested without a browser (test/extension/link-body.test.ts).
 *
 * @example
 * linkBody({ url: 'https://example.com/post', domain: 'go.example.com', key: '', tagIds: ['tag_1'],
 *            template: { name: 'Newsletter', utm_source: 'newsletter', utm_medium: 'email' } });
 * // → { url: 'https://example.com/post', domain: 'go.example.com', tagIds: ['tag_1'],
 * //     utm_source: 'newsletter', utm_medium: 'email' }
 */
import { UTM_FIELDS } from './settings.js';

/**
 * Only http(s) pages can be shortened (not chrome://, file: or the new tab page).
 * @param {string | undefined} url
 */
export function isShortenable(url) {
  if (!url) return false;
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * @param {{ url: string, domain?: string, key?: string, tagIds?: string[], template?: import('./settings.js').UtmTemplate | null }} choices
 * @returns {Record<string, unknown>}
 */
export function linkBody({ url, domain, key, tagIds, template }) {
  /** @type {Record<string, unknown>} */
  const body = { url: url.trim() };
  if (domain) body.domain = domain;
  const trimmedKey = (key ?? '').trim().replace(/^\/+/, '');
  if (trimmedKey) body.key = trimmedKey;
  if (tagIds && tagIds.length) body.tagIds = [...tagIds];
  if (template) {
    for (const field of UTM_FIELDS) {
      if (template[field]) body[field] = template[field];
    }
  }
  return body;
}

/**
 * The extension's settings, kept in `chrome.storage.local` (never `sync`: the API key stays on
 * this machine). `last` remembers the popup's previous choices so the next link is one click.
 *
 * @example
 * const settings = await loadSettings(chrome.storage.local);
 * await saveSettings(chrome.storage.local, { baseUrl: 'https://links.example.com', apiKey: 'wm_…' });
 * normalizeBaseUrl('https://links.example.com/api/'); // 'https://links.example.com/api'
 */

/** @typedef {{ name: string, utm_source?: string, utm_medium?: string, utm_campaign?: string, utm_term?: string, utm_content?: string }} UtmTemplate */
/** @typedef {{ baseUrl: string, apiKey: string, utmTemplates: UtmTemplate[], last: { domain: string, tagIds: string[], template: string } }} Settings */

/** @type {Settings} */
export const DEFAULT_SETTINGS = Object.freeze({ baseUrl: '', apiKey: '', utmTemplates: [], last: { domain: '', tagIds: [], template: '' } });

/** The UTM parameters a template may set, in the order forms show them. */
export const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'];

/** Most templates kept, and the longest value of each field (the API's own limit is larger). */
export const MAX_TEMPLATES = 50;
export const MAX_UTM_VALUE = 190;

/**
 * The API's base URL as typed, normalised: http(s) only, no query or fragment, no trailing slash.
 * Returns null for anything else.
 * @param {string} text
 * @returns {string | null}
 */
export function normalizeBaseUrl(text) {
  let url;
  try {
    url = new URL(String(text).trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password) return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Templates as stored: named, trimmed, unknown fields dropped, empty values left out, names unique.
 * @param {unknown} list
 * @returns {UtmTemplate[]}
 */
export function cleanTemplates(list) {
  if (!Array.isArray(list)) return [];
  const seen = new Set();
  /** @type {UtmTemplate[]} */
  const out = [];
  for (const item of list) {
    if (!item || typeof item !== 'object') continue;
    const name = String(item.name ?? '').trim().slice(0, 100);
    if (!name || seen.has(name)) continue;
    /** @type {UtmTemplate} */
    const template = { name };
    for (const field of UTM_FIELDS) {
      const value = String(item[field] ?? '').trim().slice(0, MAX_UTM_VALUE);
      if (value) template[field] = value;
    }
    seen.add(name);
    out.push(template);
    if (out.length === MAX_TEMPLATES) break;
  }
  return out;
}

/**
 * @param {chrome.storage.StorageArea} storage
 * @returns {Promise<Settings>}
 */
export async function loadSettings(storage) {
  const stored = await storage.get(['baseUrl', 'apiKey', 'utmTemplates', 'last']);
  return {
    baseUrl: typeof stored.baseUrl === 'string' ? stored.baseUrl : '',
    apiKey: typeof stored.apiKey === 'string' ? stored.apiKey : '',
    utmTemplates: cleanTemplates(stored.utmTemplates),
    last: { ...DEFAULT_SETTINGS.last, ...(stored.last && typeof stored.last === 'object' ? stored.last : {}) },
  };
}

/**
 * @param {chrome.storage.StorageArea} storage
 * @param {Partial<Settings>} patch
 */
export async function saveSettings(storage, patch) {
  await storage.set(patch);
}

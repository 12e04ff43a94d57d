// The options page: the API's base URL and key (checked against the API when saved) and the UTM
// templates the popup offers. Values are set as properties, never written as HTML.
import { ApiError, createApi } from './lib/api.js';
import { MAX_TEMPLATES, MAX_UTM_VALUE, UTM_FIELDS, cleanTemplates, loadSettings, normalizeBaseUrl, saveSettings } from './lib/settings.js';

const storage = chrome.storage.local;
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
let rows = 0;

/** @param {string} id @param {string} text @param {'info' | 'error'} [kind] */
function say(id, text, kind = 'info') {
  $(id).textContent = text;
  $(id).className = kind;
}

const LABELS = { name: 'Name', utm_source: 'Source', utm_medium: 'Medium', utm_campaign: 'Campaign', utm_term: 'Term', utm_content: 'Content' };

/** A fieldset for one template; `values` fill it. @param {Record<string, string>} values */
function addTemplateRow(values = {}) {
  rows += 1;
  const set = document.createElement('fieldset');
  set.className = 'template';
  const legend = document.createElement('legend');
  legend.textContent = values.name ? `Template ${values.name}` : 'New template';
  set.append(legend);
  for (const field of ['name', ...UTM_FIELDS]) {
    const id = `t${rows}-${field}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = LABELS[field];
    const input = document.createElement('input');
    input.id = id;
    input.name = field;
    input.type = 'text';
    input.maxLength = field === 'name' ? 100 : MAX_UTM_VALUE;
    input.value = values[field] ?? '';
    input.spellcheck = false;
    set.append(label, input);
  }
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'quiet';
  remove.textContent = 'Remove';
  remove.addEventListener('click', () => set.remove());
  set.append(remove);
  $('templates').append(set);
}

function readTemplates() {
  return [...document.querySelectorAll('fieldset.template')].map((set) => {
    /** @type {Record<string, string>} */
    const values = {};
    for (const input of set.querySelectorAll('input')) values[input.name] = input.value;
    return values;
  });
}

async function main() {
  const settings = await loadSettings(storage);
  const baseUrl = /** @type {HTMLInputElement} */ ($('base-url'));
  const apiKey = /** @type {HTMLInputElement} */ ($('api-key'));
  baseUrl.value = settings.baseUrl;
  apiKey.value = settings.apiKey;
  for (const t of settings.utmTemplates) addTemplateRow(t);

  $('connection').addEventListener('submit', async (event) => {
    event.preventDefault();
    const base = normalizeBaseUrl(baseUrl.value);
    if (!base) {
      say('connection-status', 'The base URL must be an http(s) address.', 'error');
      return;
    }
    const key = apiKey.value.trim();
    baseUrl.value = base;
    await saveSettings(storage, { baseUrl: base, apiKey: key });
    say('connection-status', 'Saved; checking the key…');
    try {
      await createApi({ baseUrl: base, apiKey: key }).recentLinks(1);
      say('connection-status', 'Saved. The key works: the popup is ready.');
    } catch (err) {
      // Unreachable without direct access: most likely a server that answers extensions without CORS headers.
      if (err instanceof ApiError && err.code === 'network' && !(await chrome.permissions.contains({ origins: [`${new URL(base).origin}/*`] }))) {
        say('connection-status', `Saved, but ${base} could not be reached from the extension. If it answers other clients, it sends no CORS headers for extensions (the published API does not): press “Allow direct access to this server” below, then Save and check again.`, 'error');
        return;
      }
      say('connection-status', `Saved, but the server refused: ${err instanceof Error ? err.message : String(err)}`, 'error');
    }
  });

  // Only on request: with it, Chromium lets the extension call a server that sends no CORS headers.
  $('grant').addEventListener('click', async () => {
    const base = normalizeBaseUrl(baseUrl.value);
    if (!base) {
      say('connection-status', 'Type the base URL first.', 'error');
      return;
    }
    const granted = await chrome.permissions.request({ origins: [`${new URL(base).origin}/*`] });
    say('connection-status', granted ? 'Direct access allowed.' : 'Direct access was not allowed.', granted ? 'info' : 'error');
  });

  $('add-template').addEventListener('click', () => {
    if (document.querySelectorAll('fieldset.template').length >= MAX_TEMPLATES) {
      say('templates-status', `At most ${MAX_TEMPLATES} templates.`, 'error');
      return;
    }
    addTemplateRow();
  });

  $('templates-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const templates = cleanTemplates(readTemplates());
    await saveSettings(storage, { utmTemplates: templates });
    say('templates-status', `Saved ${templates.length} ${templates.length === 1 ? 'template' : 'templates'}.`);
  });
  // The stored settings are in the fields and the forms answer: typing or saving before this point
  // would be overwritten by the stored values or submit the page itself.
  document.body.dataset.ready = 'true';
}

main().catch((err) => say('connection-status', err instanceof Error ? err.message : String(err), 'error'));

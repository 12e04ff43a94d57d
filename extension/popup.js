// The popup: shortens the active tab's URL with the chosen domain, key, tags and UTM template,
// shows the short link with a copy button, its QR code and click count, and the recent links.
// Every value from the API or the page is written with textContent or a property, never as HTML.
import { createApi } from './lib/api.js';
import { isShortenable, linkBody } from './lib/link-body.js';
import { loadSettings, saveSettings } from './lib/settings.js';

const storage = chrome.storage.local;
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const RECENT = 5;

/** @param {string} text @param {'info' | 'error'} [kind] */
function say(text, kind = 'info') {
  const status = $('status');
  status.textContent = text;
  status.className = kind;
}

/** @param {number} n */
const clicksText = (n) => `${n} ${n === 1 ? 'click' : 'clicks'}`;

/** The tab the popup was opened over (the toolbar button or its shortcut grants its URL). */
async function currentTab() {
  const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
  return tab;
}

/** @param {HTMLSelectElement} select @param {string} value @param {string} label */
function addOption(select, value, label) {
  const option = document.createElement('option');
  option.value = value;
  option.textContent = label;
  select.append(option);
}

async function main() {
  $('open-options').addEventListener('click', () => chrome.runtime.openOptionsPage());
  $('setup-options').addEventListener('click', () => chrome.runtime.openOptionsPage());
  const settings = await loadSettings(storage);
  if (!settings.baseUrl || !settings.apiKey) {
    $('setup').hidden = false;
    return;
  }
  $('main').hidden = false;
  const api = createApi(settings);
  const url = /** @type {HTMLInputElement} */ ($('url'));
  const key = /** @type {HTMLInputElement} */ ($('key'));
  const domain = /** @type {HTMLSelectElement} */ ($('domain'));
  const template = /** @type {HTMLSelectElement} */ ($('template'));

  const tab = await currentTab();
  if (tab && isShortenable(tab.url)) url.value = tab.url;
  else say('This page cannot be shortened; paste an http(s) address.');

  for (const t of settings.utmTemplates) addOption(template, t.name, t.name);
  template.value = settings.utmTemplates.some((t) => t.name === settings.last.template) ? settings.last.template : '';

  // Domains, tags and recent links load side by side; a failure of one is shown, the rest still work.
  const [domains, tags, recent] = await Promise.allSettled([api.domains(), api.tags(), showRecent(api)]);
  // A key without tags.read still shortens (no tag choices); other refusals are worth saying.
  const refusal = [domains, recent].find((r) => r.status === 'rejected');
  if (refusal) say(refusal.reason instanceof Error ? refusal.reason.message : String(refusal.reason), 'error');
  if (domains.status === 'fulfilled' && Array.isArray(domains.value)) {
    for (const d of domains.value) if (d && typeof d.slug === 'string') addOption(domain, d.slug, d.slug);
    if ([...domain.options].some((o) => o.value === settings.last.domain)) domain.value = settings.last.domain;
  }
  if (tags.status === 'fulfilled' && Array.isArray(tags.value) && tags.value.length) {
    const box = $('tags');
    for (const t of tags.value) {
      if (!t || typeof t.id !== 'string') continue;
      const label = document.createElement('label');
      label.className = 'tag';
      const check = document.createElement('input');
      check.type = 'checkbox';
      check.name = 'tag';
      check.value = t.id;
      check.checked = settings.last.tagIds.includes(t.id);
      label.append(check, ` ${String(t.name ?? t.id)}`);
      box.append(label);
    }
    $('tags-box').hidden = false;
  }

  $('shorten').addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = /** @type {HTMLButtonElement} */ ($('shorten-button'));
    const tagIds = [...document.querySelectorAll('input[name="tag"]:checked')].map((c) => /** @type {HTMLInputElement} */ (c).value);
    const chosen = settings.utmTemplates.find((t) => t.name === template.value) ?? null;
    if (!isShortenable(url.value)) {
      say('Only http(s) addresses can be shortened.', 'error');
      return;
    }
    button.disabled = true;
    say('Shortening…');
    try {
      const link = await api.createLink(linkBody({ url: url.value, domain: domain.value, key: key.value, tagIds, template: chosen }));
      await saveSettings(storage, { last: { domain: domain.value, tagIds, template: template.value } });
      showLink(api, link);
      say('Short link created.');
      await showRecent(api);
    } catch (err) {
      say(err instanceof Error ? err.message : String(err), 'error');
    } finally {
      button.disabled = false;
    }
  });

  $('copy').addEventListener('click', async () => {
    const link = /** @type {HTMLAnchorElement} */ ($('short-link')).href;
    try {
      await navigator.clipboard.writeText(link);
      say('Copied to the clipboard.');
    } catch (err) {
      say(`Could not copy: ${err instanceof Error ? err.message : String(err)}`, 'error');
    }
  });
}

/** Shows a link (created, or picked from the recent ones): short link, clicks, destination, QR code. */
function showLink(api, link) {
  const anchor = /** @type {HTMLAnchorElement} */ ($('short-link'));
  anchor.href = String(link.shortLink);
  anchor.textContent = String(link.shortLink);
  $('clicks').textContent = clicksText(Number(link.clicks ?? 0));
  $('destination').textContent = String(link.url ?? '');
  $('destination').title = String(link.url ?? '');
  const qr = /** @type {HTMLImageElement} */ ($('qr'));
  qr.alt = `QR code for ${link.shortLink}`;
  qr.src = api.qrCodeUrl(String(link.shortLink));
  $('result').hidden = false;
}

async function showRecent(api) {
  const links = await api.recentLinks(RECENT);
  const list = $('recent');
  list.replaceChildren();
  if (!Array.isArray(links) || !links.length) {
    const empty = document.createElement('li');
    empty.className = 'empty';
    empty.textContent = 'No links yet.';
    list.append(empty);
    return;
  }
  for (const link of links) {
    const item = document.createElement('li');
    const pick = document.createElement('button');
    pick.type = 'button';
    pick.className = 'link';
    const short = document.createElement('span');
    short.className = 'short-text';
    short.textContent = String(link.shortLink);
    const clicks = document.createElement('span');
    clicks.className = 'count';
    clicks.textContent = clicksText(Number(link.clicks ?? 0));
    const destination = document.createElement('span');
    destination.className = 'destination';
    destination.textContent = String(link.url ?? '');
    pick.append(short, clicks, destination);
    pick.addEventListener('click', () => showLink(api, link));
    item.append(pick);
    list.append(item);
  }
}

main().catch((err) => say(err instanceof Error ? err.message : String(err), 'error'));

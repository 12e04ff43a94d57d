/**
 * The public bio page: one server-rendered HTML document, no script, its style inline (a few
 * hundred bytes a theme), phone-first (one column, tap targets of at least 48 px), every value
 * escaped. Each tile links to the short link itself, so a tap is the redirect's click (trigger
 * `link`) with this page as its referer.
 *
 * @example
 * const html = renderBioPage({ page, links, url: 'https://go.example/@ada' });
 */
import { pageImageUrl, locationUrl } from '../web-url.js';
import { NETWORKS, NETWORK_LABELS, type BioPage, type BioTheme, type Network } from './schema.js';
import type { BioLinkRow } from './store.js';

const THEME_CSS: Record<BioTheme, string> = {
  light: '--bg:#f6f7f9;--fg:#14171a;--muted:#4a535c;--tile:#fff;--edge:#d5d9de;--accent:#0b57d0',
  dark: '--bg:#121417;--fg:#f1f3f5;--muted:#b4bcc4;--tile:#1e2227;--edge:#3a4048;--accent:#8ab4f8',
  ocean: '--bg:#0b3d5c;--fg:#fff;--muted:#d6ecf7;--tile:#12557d;--edge:#4b8db3;--accent:#ffe08a',
  sunset: '--bg:#fff1e6;--fg:#3b1405;--muted:#6e3516;--tile:#ffd8bf;--edge:#e39a6f;--accent:#9c2c00',
};

const BASE_CSS =
  '*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}' +
  'main{max-width:36rem;margin:0 auto;padding:2rem 1rem 3rem;text-align:center}' +
  '.avatar{width:96px;height:96px;border-radius:50%;object-fit:cover;border:2px solid var(--edge)}' +
  'h1{font-size:1.5rem;margin:.75rem 0 .25rem;overflow-wrap:anywhere}.bio{color:var(--muted);margin:0 0 1.25rem;overflow-wrap:anywhere;white-space:pre-line}' +
  '.socials{display:flex;flex-wrap:wrap;justify-content:center;gap:.5rem;list-style:none;padding:0;margin:0 0 1.5rem}' +
  '.socials a{display:flex;align-items:center;justify-content:center;width:48px;height:48px;border-radius:50%;color:var(--fg);border:1px solid var(--edge)}' +
  '.links{list-style:none;padding:0;margin:0;display:grid;gap:.75rem}' +
  '.links a{display:flex;align-items:center;gap:.75rem;min-height:56px;padding:.5rem .75rem;border-radius:14px;background:var(--tile);color:var(--fg);border:1px solid var(--edge);text-decoration:none;text-align:left;overflow-wrap:anywhere}' +
  '.links img{width:44px;height:44px;border-radius:8px;object-fit:cover;flex:none}.links span{flex:1;font-weight:600}' +
  'a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}footer{margin-top:2rem;font-size:.8rem;color:var(--muted)}';

/** One simple glyph a network (24 × 24, drawn with the text colour). */
const ICONS: Record<Network, string> = {
  x: '<path d="M4 4l16 16M20 4L4 20" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
  instagram: '<rect x="3" y="3" width="18" height="18" rx="5" fill="none" stroke="currentColor" stroke-width="2"/><circle cx="12" cy="12" r="4" fill="none" stroke="currentColor" stroke-width="2"/><circle cx="17.3" cy="6.7" r="1.3" fill="currentColor"/>',
  youtube: '<rect x="2" y="5" width="20" height="14" rx="4" fill="currentColor"/><path d="M10 9l5 3-5 3z" fill="var(--bg)"/>',
  tiktok: '<path d="M14 3v11.5a3.5 3.5 0 1 1-3.5-3.5M14 3c.5 3 2.5 4.5 5 4.7" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>',
  linkedin: '<rect x="2" y="2" width="20" height="20" rx="3" fill="currentColor"/><path d="M7 10v7M7 7v.01M11 17v-7M11 13a3 3 0 0 1 6 0v4" stroke="var(--bg)" stroke-width="2" stroke-linecap="round" fill="none"/>',
  github: '<path d="M12 2a10 10 0 0 0-3.2 19.5c.5.1.7-.2.7-.5v-1.7c-2.8.6-3.4-1.3-3.4-1.3-.4-1.2-1.1-1.5-1.1-1.5-.9-.6.1-.6.1-.6 1 .1 1.5 1 1.5 1 .9 1.5 2.4 1.1 3 .8.1-.6.3-1.1.6-1.3-2.2-.3-4.6-1.1-4.6-5 0-1.1.4-2 1-2.7-.1-.3-.4-1.3.1-2.7 0 0 .8-.3 2.7 1a9.4 9.4 0 0 1 5 0c1.9-1.3 2.7-1 2.7-1 .5 1.4.2 2.4.1 2.7.6.7 1 1.6 1 2.7 0 3.9-2.4 4.7-4.6 5 .4.3.7.9.7 1.9V21c0 .3.2.6.7.5A10 10 0 0 0 12 2z" fill="currentColor"/>',
};

function Icon({ network }: { network: Network }): JSX.Element {
  // A constant of this file, never data: the one child rendered without `safe`.
  const svg = ICONS[network];
  return <svg width="24" height="24" viewBox="0 0 24 24" aria-hidden="true" focusable="false">{svg as 'safe'}</svg>;
}

export interface BioView {
  page: BioPage;
  links: BioLinkRow[];
}

/** The whole document, `<!doctype html>` first. */
export function renderBioPage({ page, links }: BioView): string {
  const avatar = page.avatar ? locationUrl(page.avatar) : null;
  const socials = NETWORKS.filter((n) => page.socials[n]).map((n) => ({ n, href: locationUrl(page.socials[n]) })).filter((s) => s.href !== null);
  const body = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title safe>{page.title}</title>
        {page.bio ? <meta name="description" content={page.bio} /> : ''}
        <meta name="theme-color" content={THEME_CSS[page.theme].match(/--bg:(#[0-9a-f]+)/)![1]} />
        <style>{`:root{${THEME_CSS[page.theme]}}${BASE_CSS}` as 'safe'}</style>
      </head>
      <body>
        <main>
          {avatar ? <img class="avatar" src={avatar} alt="" width="96" height="96" /> : ''}
          <h1 safe>{page.title}</h1>
          {page.bio ? <p class="bio" safe>{page.bio}</p> : ''}
          {socials.length ? (
            <ul class="socials" aria-label="Social profiles">
              {socials.map((s) => (
                <li>
                  <a href={s.href!} rel="me noopener" aria-label={NETWORK_LABELS[s.n]}>
                    <Icon network={s.n} />
                  </a>
                </li>
              ))}
            </ul>
          ) : (
            ''
          )}
          {links.length ? (
            <ul class="links" aria-label="Links">
              {links.map((l) => {
                const image = pageImageUrl(l.image);
                return (
                  <li>
                    <a href={l.short_link} data-link-id={l.id}>
                      {image && image.startsWith('https:') ? <img src={image} alt="" width="44" height="44" loading="lazy" /> : ''}
                      <span safe>{l.title || l.url}</span>
                    </a>
                  </li>
                );
              })}
            </ul>
          ) : (
            <p class="bio">No links yet.</p>
          )}
        </main>
      </body>
    </html>
  );
  return `<!doctype html>${body as string}`;
}

/** The bio 404: `/@handle` that no page has. */
export function renderBioNotFound(): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Page not found</title>' +
    `<style>:root{${THEME_CSS.light}}${BASE_CSS}</style></head><body><main><h1>Page not found</h1><p class="bio">There is no profile at this address.</p></main></body></html>`
  );
}

/**
 * The page shell of every dashboard page: header with the workspace switcher and the account
 * menu, the sections' navigation, and the page's content. Pages that need no workspace (login,
 * setup, an invitation) use `BarePage`.
 *
 * Every value a person typed (names, emails, link titles) is rendered through `safe` or
 * `Html.escapeHtml`; attribute values are quoted and escaped by @kitajs/html.
 *
 * @example
 * const html = <Layout frame={frame} title="Links" section="links"><h1>Links</h1></Layout>;
 * sendPage(reply, html);
 */
import { escapeHtml, type Children } from '@kitajs/html';
import type { UserWorkspace } from '../users/store.js';
import type { Role } from '../users/roles.js';
import { CSRF_FIELD } from './csrf.js';
import { ASSETS } from './assets.js';

export type Section = 'links' | 'analytics' | 'events' | 'customers' | 'settings' | 'account';

/** What every page of a workspace knows about who is looking (kit.tsx builds it). */
export interface Frame {
  user: { name: string; email: string };
  workspaces: UserWorkspace[];
  /** Absent on pages about the account itself (no workspace chosen). */
  workspace?: { id: string; slug: string; name: string };
  role?: Role;
  /** Whether the user may create a workspace (WORKSPACE_CREATION): the switcher offers *New workspace*. */
  mayCreateWorkspace?: boolean;
  /** The CSRF token for this session's forms. */
  csrf: string;
}

/** The sections, in the navigation's order; `path` follows `/dashboard/w/<slug>`. */
export const SECTIONS: { id: Section; label: string; path: string }[] = [
  { id: 'links', label: 'Links', path: '/links' },
  { id: 'analytics', label: 'Analytics', path: '/analytics' },
  { id: 'events', label: 'Events', path: '/events' },
  { id: 'customers', label: 'Customers', path: '/customers' },
  { id: 'settings', label: 'Settings', path: '/settings/general' },
];

/** The new-workspace form (routes/new-workspace.tsx). */
export const NEW_WORKSPACE_PATH = '/dashboard/workspaces/new';

/** `/dashboard/w/<slug><path>`: the address of a workspace's page. */
export function workspacePath(slug: string, path = ''): string {
  return `/dashboard/w/${encodeURIComponent(slug)}${path}`;
}

/** The hidden field every state-changing form carries. */
export function CsrfField({ token }: { token: string }): JSX.Element {
  return <input type="hidden" name={CSRF_FIELD} value={token} />;
}

// htmx reads its settings from this tag: no inline <style> of its own (the CSP forbids it), no
// eval, and error answers (422 with the form and its messages) are swapped in like any page.
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  selfRequestsOnly: true,
  responseHandling: [
    { code: '204', swap: false },
    { code: '[2345]..', swap: true, error: false },
  ],
});

/**
 * The page's head. `chart`: the page draws the analytics chart, so uPlot's script and stylesheet
 * (≈ 20 KB gzipped, the largest of our files) are loaded; other pages do without them. A boosted
 * (htmx) visit from a page without them to a chart page swaps only the body: chart.js then loads
 * uPlot itself from the chart element's `data-uplot-src` / `data-uplot-css`.
 */
export function Head({ title, chart = false }: { title: string; chart?: boolean }): JSX.Element {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <link rel="icon" href="/favicon.ico" />
      <title safe>{`${title} · Waymark`}</title>
      <link rel="stylesheet" href={ASSETS.css} />
      <meta name="htmx-config" content={HTMX_CONFIG} />
      <script src={ASSETS.htmx} defer></script>
      {/* links.js: the links pages' small enhancements (copy, select all, UTM), by event delegation so boosted navigation keeps them. */}
      <script src={ASSETS.linksJs} defer></script>
      {chart ? <link rel="stylesheet" href={ASSETS.uplotCss} /> : ''}
      {chart ? <script src={ASSETS.uplot} defer></script> : ''}
      {/* chart.js (≈ 1 KB) on every page: it draws a chart that a boosted visit swaps in. */}
      <script src={ASSETS.chart} defer></script>
    </head>
  );
}

function Switcher({ frame }: { frame: Frame }): JSX.Element {
  return (
    <details class="switcher">
      <summary>
        <span class="visually-hidden">Workspace: </span>
        {frame.workspace ? (
          <>
            <span safe>{frame.workspace.name}</span> <span class="role">{escapeHtml(frame.role ?? '')}</span>
          </>
        ) : (
          'Choose a workspace'
        )}
      </summary>
      <ul>
        {frame.workspaces.map((w) => (
          <li>
            <a href={workspacePath(w.slug, '/links')} aria-current={w.id === frame.workspace?.id ? 'true' : undefined}>
              <span safe>{w.name}</span> <span class="role">{escapeHtml(w.role)}</span>
            </a>
          </li>
        ))}
        {frame.mayCreateWorkspace ? (
          <li class="new-workspace">
            <a href={NEW_WORKSPACE_PATH}>+ New workspace</a>
          </li>
        ) : (
          ''
        )}
      </ul>
    </details>
  );
}

export function Layout({ frame, title, section, chart, children }: { frame: Frame; title: string; section: Section; chart?: boolean; children?: Children }): JSX.Element {
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
        <Head title={title} chart={chart} />
        {/* htmx requests that are not forms (hx-post on a button) carry the CSRF token as a header. */}
        <body hx-boost="true" hx-headers={JSON.stringify({ 'x-csrf-token': frame.csrf })}>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <a class="brand" href="/dashboard">
              Waymark
            </a>
            <Switcher frame={frame} />
            <div class="account">
              <a href="/dashboard/account" aria-current={section === 'account' ? 'page' : undefined} safe>
                {frame.user.name}
              </a>
              {/* A full navigation (not an htmx swap): the login page arrives with its own head and address. */}
              <form method="post" action="/dashboard/logout" hx-boost="false">
                <CsrfField token={frame.csrf} />
                <button type="submit" class="link">
                  Log out
                </button>
              </form>
            </div>
          </header>
          <nav class="sections" aria-label="Sections">
            <ul>
              {frame.workspace
                ? SECTIONS.map((s) => (
                    <li>
                      <a href={workspacePath(frame.workspace!.slug, s.path)} aria-current={s.id === section ? 'page' : undefined} safe>
                        {s.label}
                      </a>
                    </li>
                  ))
                : ''}
              <li>
                <a href="/docs" hx-boost="false">
                  API reference
                </a>
              </li>
            </ul>
          </nav>
          <main id="main" tabindex="-1">
            {children}
          </main>
          <ConfirmDialog />
        </body>
      </html>
    </>
  );
}

/**
 * The one confirmation dialog of a page (native `<dialog>`, opened by links.js): a submit button
 * (or form) with `data-confirm="<what is lost>"` is held until the person confirms here;
 * `data-confirm-button` names the confirming button ("Delete link"). `{count}` in the text
 * becomes the number of ticked rows. Its text is set with `textContent`, never as markup.
 */
export function ConfirmDialog(): JSX.Element {
  return (
    <dialog id="confirm" class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-text">
      <form method="dialog">
        <h2 id="confirm-title">Are you sure?</h2>
        <p id="confirm-text">This cannot be undone.</p>
        <p class="actions">
          <button type="submit" value="cancel" class="secondary" autofocus>
            Cancel
          </button>
          <button type="submit" value="confirm" class="danger" id="confirm-ok">
            Confirm
          </button>
        </p>
      </form>
    </dialog>
  );
}

/** A page without the workspace shell: login, setup, invitations, errors. */
export function BarePage({ title, children }: { title: string; children?: Children }): JSX.Element {
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
        <Head title={title} />
        <body class="bare">
          <main id="main" class="card">
            <p class="brand">Waymark</p>
            {children}
          </main>
        </body>
      </html>
    </>
  );
}

/**
 * A table that may scroll sideways on a narrow screen: a named region that takes keyboard focus,
 * so the arrow keys scroll it (axe's scrollable-region-focusable).
 */
export function TableWrap({ label, children }: { label: string; children?: Children }): JSX.Element {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabindex="0">
      {children}
    </div>
  );
}

/**
 * A value to hand on (a new API key, an invitation link) with a *Copy* button beside it; the
 * button starts hidden and links.js shows it (without JavaScript it could not copy).
 */
export function CopyableSecret({ id, value, label = 'Copy' }: { id: string; value: string; label?: string }): JSX.Element {
  return (
    <div class="copy-row">
      <code class="secret" id={id} safe>
        {value}
      </code>
      <button type="button" class="secondary" data-copy={value} hidden aria-describedby={id} safe>
        {label}
      </button>
    </div>
  );
}

/** A form's error message, announced to screen readers. */
export function FormError({ message }: { message?: string }): JSX.Element {
  if (!message) return '';
  return (
    <p class="error" role="alert" safe>
      {message}
    </p>
  );
}

/** A refusal printed under its field: `<p class="error" id="err-<id>">` (the field's `aria-describedby`). */
export function FieldError({ id, message }: { id: string; message?: string }): JSX.Element {
  if (!message) return '';
  return (
    <p class="error" id={`err-${id}`} role="alert" safe>
      {message}
    </p>
  );
}

/**
 * Links: the workspace's links, filtered, sorted and paged (routes/links.tsx), each row with its
 * clicks, leads, sales and revenue (the counters every link carries: no query per row), its short
 * link opening the link's analytics, a copy button and, for roles that may write, bulk actions on the ticked rows.
 *
 * The bulk form sits above the table and its checkboxes join it through `form="bulk"`, so each
 * row can keep its own small forms (archive) without nesting forms.
 */
import { escapeHtml } from '@kitajs/html';
import { CsrfField, FieldError, Layout, workspacePath, type Frame } from '../layout.js';
import { TagSwatch } from './settings.js';
import { can } from '../../users/roles.js';
import type { LinkResponse } from '../../links/schema.js';
import { SORT_FIELDS, type SortField } from '../../links/schema.js';
import type { BulkOp } from '../routes/links-bulk.js';
import { OUTSIDE_FOLDERS } from '../folder-view.js';
import { formatCount, formatMoney } from '../format.js';

export interface ListState {
  search: string;
  domain: string;
  tagId: string;
  folderId: string;
  showArchived: boolean;
  sortBy: SortField;
  sortOrder: 'asc' | 'desc';
}

/** What the last bulk action did; `empty`: one was pressed with no link ticked; `missing-tag`: "Add tag" without a tag. */
export type BulkNotice =
  | {
      op: BulkOp;
      count: number;
      failed: number;
    }
  | 'empty'
  | 'missing-tag';

type Cursor = { before?: string; after?: string; page?: number };

/** A workspace without links: how far its setup is (custom domains, API keys made). */
export interface GettingStarted {
  domains: number;
  keys: number;
}

export interface LinksView {
  frame: Frame & { workspace: { slug: string } };
  links: LinkResponse[];
  state: ListState;
  choices: { domains: string[]; tags: { id: string; name: string }[]; folders: { id: string; name: string }[] };
  notice?: BulkNotice;
  /** Set when the workspace has no link at all: the first screen shows the steps to start. */
  start?: GettingStarted;
  /** Where the previous (newer) and next (older) pages are, when there are. */
  newer?: Cursor;
  older?: Cursor;
}

const SORT_LABELS: Record<SortField, string> = { createdAt: 'Created', clicks: 'Clicks', lastClicked: 'Last click', saleAmount: 'Sales' };
const DONE: Record<BulkOp, string> = { archive: 'archived', unarchive: 'unarchived', tag: 'tagged', move: 'moved', delete: 'deleted' };

/** The list's query string for this state (defaults left out), plus a page position. */
export function listQuery(s: ListState, cursor: Cursor = {}): string {
  const q = new URLSearchParams();
  if (s.search) q.set('search', s.search);
  if (s.domain) q.set('domain', s.domain);
  if (s.tagId) q.set('tagId', s.tagId);
  if (s.folderId) q.set('folderId', s.folderId);
  if (s.showArchived) q.set('showArchived', 'true');
  if (s.sortBy !== 'createdAt') q.set('sortBy', s.sortBy);
  if (s.sortOrder !== 'desc') q.set('sortOrder', s.sortOrder);
  if (cursor.before) q.set('before', cursor.before);
  if (cursor.after) q.set('after', cursor.after);
  if (cursor.page && cursor.page > 1) q.set('page', String(cursor.page));
  return q.toString();
}

function Select({ name, label, value, options }: { name: string; label: string; value: string; options: [string, string][] }): JSX.Element {
  return (
    <label>
      <span safe>{label}</span>
      <select name={name}>
        {options.map(([v, text]) => (
          <option value={v} selected={v === value} safe>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The filters: the search and *Apply* always in view; domain, tag, folder, sorting and archived
 * links in a `<details>` (*Filters and sorting*), open when one of them is set, so a phone shows
 * one line until asked.
 */
function Filters({ v, base }: { v: LinksView; base: string }): JSX.Element {
  const s = v.state;
  const refined = !!(s.domain || s.tagId || s.folderId || s.showArchived || s.sortBy !== 'createdAt' || s.sortOrder !== 'desc');
  return (
    <form method="get" action={base} class="toolbar filters" role="search">
      <label class="search">
        Search
        <input type="search" name="search" value={s.search} maxlength="200" placeholder="Key or destination" />
      </label>
      <details class="more-filters" open={refined}>
        <summary>Filters and sorting</summary>
        <div class="toolbar">
          <Select name="domain" label="Domain" value={s.domain} options={[['', 'All domains'], ...v.choices.domains.map((d): [string, string] => [d, d])]} />
          <Select name="tagId" label="Tag" value={s.tagId} options={[['', 'All tags'], ...v.choices.tags.map((t): [string, string] => [t.id, t.name])]} />
          <Select name="folderId" label="Folder" value={s.folderId} options={[['', 'All folders'], [OUTSIDE_FOLDERS, 'Outside folders'], ...v.choices.folders.map((f): [string, string] => [f.id, f.name])]} />
          <Select name="sortBy" label="Sort by" value={s.sortBy} options={SORT_FIELDS.map((f): [string, string] => [f, SORT_LABELS[f]])} />
          <Select name="sortOrder" label="Order" value={s.sortOrder} options={[['desc', 'Descending'], ['asc', 'Ascending']]} />
          <label class="inline">
            <input type="checkbox" name="showArchived" value="true" checked={s.showArchived} /> Show archived
          </label>
        </div>
      </details>
      <button type="submit" class="secondary">
        Apply
      </button>
    </form>
  );
}

function BulkBar({ v, base }: { v: LinksView; base: string }): JSX.Element {
  return (
    <form method="post" action={`${base}/bulk`} id="bulk" class="toolbar bulk">
      <CsrfField token={v.frame.csrf} />
      <input type="hidden" name="back" value={listQuery(v.state)} />
      <span class="hint">With the selected links:</span>
      <button type="submit" name="op" value="archive" class="secondary" data-needs-selection="">
        Archive
      </button>
      <button type="submit" name="op" value="unarchive" class="secondary" data-needs-selection="">
        Unarchive
      </button>
      <span class="group">
        <select name="tagId" aria-label="Tag to add" {...(v.notice === 'missing-tag' ? { 'aria-invalid': 'true', 'aria-describedby': 'err-tagId' } : {})}>
          <option value="">Tag…</option>
          {v.choices.tags.map((t) => (
            <option value={t.id} safe>
              {t.name}
            </option>
          ))}
        </select>
        <button type="submit" name="op" value="tag" class="secondary" data-needs-selection="">
          Add tag
        </button>
        <FieldError id="tagId" message={v.notice === 'missing-tag' ? 'Choose the tag to add in this list, tick the links again, then press “Add tag”.' : undefined} />
      </span>
      <span class="group">
        <select name="folderId" aria-label="Folder to move to">
          <option value="">No folder</option>
          {v.choices.folders.map((f) => (
            <option value={f.id} safe>
              {f.name}
            </option>
          ))}
        </select>
        <button type="submit" name="op" value="move" class="secondary" data-needs-selection="">
          Move to folder
        </button>
      </span>
      <button
        type="submit"
        name="op"
        value="delete"
        class="danger"
        data-needs-selection=""
        data-confirm="Delete the {count} selected links? Their short links stop redirecting at once, and they leave the links list, Top links and the event list. Their clicks, leads and sales stay in the workspace's totals. This cannot be undone."
        data-confirm-button="Delete links"
      >
        Delete
      </button>
    </form>
  );
}

/** A link's analytics: all time, filtered to the link (the page's `linkId` filter). */
export function linkAnalyticsHref(slug: string, linkId: string): string {
  return workspacePath(slug, `/analytics?${new URLSearchParams({ interval: 'all', linkId })}`);
}

function Row({ l, write, base, csrf, slug }: { l: LinkResponse; write: boolean; base: string; csrf: string; slug: string }): JSX.Element {
  const id = encodeURIComponent(l.id);
  return (
    <tr data-link-id={l.id}>
      {write ? (
        <td class="select">
          <input type="checkbox" form="bulk" name={`sel_${l.id}`} value="on" data-select="" aria-label={`Select ${l.shortLink}`} />
        </td>
      ) : (
        ''
      )}
      <td class="link">
        <a class="short-link" href={linkAnalyticsHref(slug, l.id)} title="Analytics of this link" safe>
          {l.shortLink}
        </a>{' '}
        <button type="button" class="link copy" data-copy={l.shortLink} hidden>
          Copy
        </button>
        {l.archived ? <span class="role"> archived</span> : ''}
        {l.title ? (
          <div class="hint" safe>
            {l.title}
          </div>
        ) : (
          ''
        )}
        {l.tags?.length ? (
          <div class="tags">
            {l.tags.map((t) => (
              <span class="tag">
                <TagSwatch color={t.color} />
                <span safe>{t.name}</span>
              </span>
            ))}
          </div>
        ) : (
          ''
        )}
      </td>
      <td class="url" title={l.url} safe>
        {l.url}
      </td>
      <td class="num clicks" data-label="clicks" data-clicks={String(l.clicks)} safe>
        {formatCount(l.clicks)}
      </td>
      <td class="num optional" data-leads={String(l.leads)} safe>
        {formatCount(l.leads)}
      </td>
      <td class="num optional" data-sales={String(l.sales)} safe>
        {formatCount(l.sales)}
      </td>
      <td class="num optional" data-sale-amount={String(l.saleAmount)} safe>
        {formatMoney(l.saleAmount)}
      </td>
      <td class="optional" safe>{l.createdAt.slice(0, 10)}</td>
      <td class="actions">
        <a href={linkAnalyticsHref(slug, l.id)}>Analytics</a>
        {l.testVariants?.length ? ' ' : ''}
        {l.testVariants?.length ? <a href={`${base}/${id}/ab-test`}>A/B test</a> : ''}
        {write ? ' ' : ''}
        {write ? <a href={`${base}/${id}/edit`}>Edit</a> : <a href={`${base}/${id}`}>Details</a>}{' '}
        {write ? (
          <form method="post" action={`${base}/${id}/archive`} class="inline">
            <CsrfField token={csrf} />
            <input type="hidden" name="archived" value={l.archived ? 'false' : 'true'} />
            <button type="submit" class="secondary">
              {l.archived ? 'Unarchive' : 'Archive'}
            </button>
          </form>
        ) : (
          ''
        )}
      </td>
    </tr>
  );
}

export function LinksPage(v: LinksView): JSX.Element {
  const { frame, links } = v;
  const write = can(frame.role!, 'links.write');
  const base = workspacePath(frame.workspace.slug, '/links');
  const href = (c: Cursor) => {
    const qs = listQuery(v.state, c);
    return `${base}${qs ? `?${qs}` : ''}`;
  };
  const [prev, next] = v.state.sortBy === 'createdAt' && v.state.sortOrder === 'desc' ? ['Newer', 'Older'] : ['Previous', 'Next'];
  const filtered = !!(v.state.search || v.state.domain || v.state.tagId || v.state.folderId);
  return (
    <Layout frame={frame} title="Links" section="links">
      <div class="heading">
        <h1>Links</h1>
        {write ? (
          <a class="button" href={`${base}/new`}>
            New link
          </a>
        ) : (
          ''
        )}
        {write ? <a href={`${base}/import`}>Import CSV</a> : ''}
        <a href={`${base}/export${exportQuery(v.state)}`} hx-boost="false">
          Export CSV
        </a>
      </div>
      {v.notice && v.notice !== 'missing-tag' ? (
        <p class={v.notice === 'empty' ? 'error' : 'notice'} role="status" safe>
          {noticeText(v.notice)}
        </p>
      ) : (
        ''
      )}
      <Filters v={v} base={base} />
      {write && links.length ? <BulkBar v={v} base={base} /> : ''}
      {v.start ? (
        <GettingStartedSteps frame={frame} start={v.start} />
      ) : links.length === 0 ? (
        <p>{filtered ? 'No link matches these filters.' : 'No links yet.'}</p>
      ) : (
        <div class="table-wrap">
          <table class="links-table">
            <thead>
              <tr>
                {write ? (
                  <th scope="col" class="select">
                    <input type="checkbox" form="bulk" data-select-all="" aria-label="Select all links on this page" />
                  </th>
                ) : (
                  ''
                )}
                <th scope="col">Short link</th>
                <th scope="col">Destination</th>
                <th scope="col" class="num">
                  Clicks
                </th>
                <th scope="col" class="num optional">
                  Leads
                </th>
                <th scope="col" class="num optional">
                  Sales
                </th>
                <th scope="col" class="num optional">
                  Revenue
                </th>
                <th scope="col" class="optional">
                  Created
                </th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {links.map((l) => (
                <Row l={l} write={write} base={base} csrf={frame.csrf} slug={frame.workspace.slug} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        {v.newer ? (
          <a href={href(v.newer)} rel="prev" safe>
            {prev}
          </a>
        ) : (
          ''
        )}
        <span safe>{`${links.length === 1 ? '1 link' : `${links.length} links`} on this page`}</span>
        {v.older ? (
          <a href={href(v.older)} rel="next" safe>
            {next}
          </a>
        ) : (
          ''
        )}
      </nav>
    </Layout>
  );
}

/**
 * The first screen of a workspace without links: what to do first, each step a link to its page
 * (a step already done says so). Viewers are told who creates links.
 */
function GettingStartedSteps({ frame, start }: { frame: LinksView['frame']; start: GettingStarted }): JSX.Element {
  const at = (rest: string) => workspacePath(frame.workspace.slug, rest);
  const write = can(frame.role!, 'links.write');
  const owner = can(frame.role!, 'settings.manage');
  if (!write) {
    return (
      <section class="getting-started" aria-labelledby="getting-started">
        <h2 id="getting-started">No links yet</h2>
        <p>Owners and members of this workspace create its links; they appear here, with their clicks, leads and sales.</p>
      </section>
    );
  }
  return (
    <section class="getting-started" aria-labelledby="getting-started">
      <h2 id="getting-started">Get started</h2>
      <p>This workspace has no links yet. Three steps to your first tracked campaign:</p>
      <ol>
        <li>
          <a href={at('/links/new')}>
            <strong>Create a short link</strong>
          </a>{' '}
          — a destination, a key, UTM values if you like; every visit is counted as a click. Or <a href={at('/links/import')}>import links from a CSV file</a>.
        </li>
        <li class={start.domains ? 'done' : undefined}>
          {owner ? (
            <a href={at('/settings/domains')}>
              <strong>Add your own domain</strong>
            </a>
          ) : (
            <strong>Your own domain</strong>
          )}{' '}
          {start.domains
            ? escapeHtml(`— done: ${start.domains} ${start.domains === 1 ? 'domain' : 'domains'} added.`)
            : owner
              ? '— short links such as go.example.com/spring instead of the default domain.'
              : '— an owner adds it in Settings → Domains.'}
        </li>
        <li class={start.keys ? 'done' : undefined}>
          {owner ? (
            <a href={at('/settings/keys')}>
              <strong>Create an API key</strong>
            </a>
          ) : (
            <strong>An API key</strong>
          )}{' '}
          {start.keys
            ? '— done: your app can report leads and sales.'
            : owner
              ? '— your app reports leads and sales with it (POST /track/lead, /track/sale), and the dub SDK works with it.'
              : '— an owner creates it in Settings → API keys.'}
        </li>
      </ol>
      <p class="hint">
        <a href="/docs" hx-boost="false">
          API reference
        </a>
      </p>
    </section>
  );
}

function noticeText(n: BulkNotice): string {
  if (n === 'empty') return 'Select at least one link first: tick the boxes of the links to change.';
  if (n === 'missing-tag') return 'Choose the tag to add first.';
  return `${n.count} ${n.count === 1 ? 'link' : 'links'} ${DONE[n.op]}${n.failed ? `; ${n.failed} could not be changed.` : '.'}`;
}

/** The list's filters as the export's query (`GET /links/export` takes the same ones). */
function exportQuery(state: LinksView['state']): string {
  const q = new URLSearchParams();
  for (const k of ['search', 'domain', 'tagId', 'folderId'] as const) if (state[k]) q.set(k, String(state[k]));
  if (state.showArchived) q.set('showArchived', 'true');
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * Events (routes/activity.tsx): the workspace's clicks, leads or sales, newest first, a page at a
 * time, as `GET /events` lists them; and the table of events a customer's page reuses.
 */
import { formatMoney } from '../format.js';
import { escapeHtml } from '@kitajs/html';
import type { EventRecord } from '../../analytics/schema.js';
import { Layout, workspacePath, type Frame } from '../layout.js';
import { OUTSIDE_FOLDERS } from '../folder-view.js';
import { countryLabel } from '../countries.js';
import { LinkPicker } from './link-picker.js';

export const EVENT_TABS = [
  { event: 'clicks', label: 'Clicks' },
  { event: 'leads', label: 'Leads' },
  { event: 'sales', label: 'Sales' },
] as const;
export type EventTab = (typeof EVENT_TABS)[number]['event'];


/** "2026-03-01 14:05:09 UTC", the text a time shows until chart.js writes it in the viewer's zone. */
export function utcText(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/**
 * One row per event: when (in the viewer's time zone: chart.js rewrites each `time[data-local]`;
 * UTC without JavaScript), what, which link (to its page), where from, and the customer of a lead
 * or sale (to theirs). On a phone each row is a card (dashboard.css, `td[data-label]`).
 */
export function EventsTable({ slug, events }: { slug: string; events: EventRecord[] }): JSX.Element {
  return (
    <div class="table-wrap">
      <table class="events">
        <thead>
          <tr>
            <th scope="col">
              Time <span data-zone-name>(UTC)</span>
            </th>
            <th scope="col">Event</th>
            <th scope="col">Link</th>
            <th scope="col">Country</th>
            <th scope="col" class="optional">Device</th>
            <th scope="col" class="optional">Referer</th>
            <th scope="col">Customer</th>
            <th scope="col" class="num">Amount</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => {
            const customer = 'customer' in e ? e.customer : undefined;
            const name = e.event === 'click' ? 'Click' : e.eventName;
            return (
              <tr data-event-id={e.event === 'click' ? e.click.id : e.eventId} data-timestamp={e.timestamp}>
                <td class="time" data-label="Time">
                  <time datetime={e.timestamp} data-local safe>
                    {utcText(e.timestamp)}
                  </time>
                </td>
                <td class="event" data-label="Event" safe>{name}</td>
                <td class="url" data-label="Link">
                  <a href={workspacePath(slug, `/links/${encodeURIComponent(e.link.id)}/edit`)} title={e.link.url} safe>
                    {e.link.title || e.link.shortLink}
                  </a>
                </td>
                <td data-label="Country" title={e.click.country} safe>
                  {countryLabel(e.click.country)}
                </td>
                <td class="optional" data-label="Device" safe>{e.click.device}</td>
                <td class="optional" data-label="Referer" safe>{e.click.referer}</td>
                <td data-label="Customer">
                  {customer ? (
                    <a href={workspacePath(slug, `/customers/${encodeURIComponent(customer.id)}`)} safe>
                      {customer.name || customer.email || customer.id}
                    </a>
                  ) : (
                    ''
                  )}
                </td>
                <td class="num" data-label="Amount">{e.event === 'sale' ? escapeHtml(formatMoney(e.saleAmount)) : ''}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export interface EventsView {
  frame: Frame & { workspace: { slug: string } };
  tab: EventTab;
  events: EventRecord[];
  /** The cursor of the newer page (`?newer=`), if any. */
  newer?: string;
  /** The cursor of the older page (`?older=`), if any. */
  older?: string;
  /** Whether this is a page after the first (a "Newest" link back). */
  paged: boolean;
  /** The folder filter: '' every folder, `unsorted` outside folders, or a folder id. */
  folderId: string;
  folders: { id: string; name: string }[];
  /** The link filter ('' any link), what was typed in its search, and the links it offers. */
  linkId: string;
  linkSearch: string;
  links: { value: string; label: string }[];
}

export function EventsPage(v: EventsView): JSX.Element {
  const slug = v.frame.workspace.slug;
  const query = (event: EventTab, at: Record<string, string> = {}) => {
    const q = new URLSearchParams({ event });
    if (v.folderId) q.set('folderId', v.folderId);
    if (v.linkId) q.set('linkId', v.linkId);
    for (const [k, val] of Object.entries(at)) q.set(k, val);
    return q.toString();
  };
  const href = (event: EventTab, at?: Record<string, string>) => workspacePath(slug, `/events?${query(event, at)}`);
  const chosen = v.links.find((l) => l.value === v.linkId);
  return (
    <Layout frame={v.frame} title="Events" section="events">
      <div class="heading">
        <h1>Events</h1>
        <a href={workspacePath(slug, `/events/export?${query(v.tab)}`)} hx-boost="false">
          Export CSV
        </a>
      </div>
      <nav class="tabs" aria-label="Event types">
        <ul>
          {EVENT_TABS.map((t) => (
            <li>
              <a href={href(t.event)} aria-current={t.event === v.tab ? 'page' : undefined}>
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action={workspacePath(slug, '/events')} class="toolbar events-filters" aria-label="Filters">
        <input type="hidden" name="event" value={v.tab} />
        <LinkPicker id="event-link-choices" optionsUrl={workspacePath(slug, '/analytics/link-options')} search={v.linkSearch} links={v.links} selected={[v.linkId]} />
        <label>
          Folder
          <select name="folderId">
            <option value="">All folders</option>
            <option value={OUTSIDE_FOLDERS} selected={v.folderId === OUTSIDE_FOLDERS}>
              Outside folders
            </option>
            {v.folders.map((f) => (
              <option value={f.id} selected={v.folderId === f.id} safe>
                {f.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="secondary">
          Apply
        </button>
      </form>
      {chosen ? (
        <ul class="active-filters" aria-label="Active filters">
          <li>
            <span safe>{`Link: ${chosen.label}`}</span>{' '}
            <a href={workspacePath(slug, `/events?${new URLSearchParams({ event: v.tab, ...(v.folderId ? { folderId: v.folderId } : {}) })}`)} aria-label="Remove the filter Link">
              ✕
            </a>
          </li>
        </ul>
      ) : (
        ''
      )}
      {v.events.length === 0 ? <p>No {v.tab} here.</p> : <EventsTable slug={slug} events={v.events} />}
      <nav class="pager" aria-label="Pages">
        {v.paged ? <a href={href(v.tab)}>Newest</a> : ''}
        {v.newer ? (
          <a href={href(v.tab, { newer: v.newer })} rel="prev">
            Newer
          </a>
        ) : (
          ''
        )}
        {v.older ? (
          <a href={href(v.tab, { older: v.older })} rel="next">
            Older
          </a>
        ) : (
          ''
        )}
      </nav>
    </Layout>
  );
}

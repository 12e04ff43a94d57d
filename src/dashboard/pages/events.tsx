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

export const EVENT_TABS = [
  { event: 'clicks', label: 'Clicks' },
  { event: 'leads', label: 'Leads' },
  { event: 'sales', label: 'Sales' },
] as const;
export type EventTab = (typeof EVENT_TABS)[number]['event'];


/** One row per event: when, what, which link, where from, and the customer of a lead or sale. */
export function EventsTable({ slug, events }: { slug: string; events: EventRecord[] }): JSX.Element {
  return (
    <div class="table-wrap">
      <table class="events">
        <thead>
          <tr>
            <th scope="col">Time (UTC)</th>
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
              <tr data-event-id={e.event === 'click' ? e.click.id : e.eventId}>
                <td safe>{e.timestamp}</td>
                <td safe>{name}</td>
                <td class="url" safe>{e.link.shortLink}</td>
                <td title={e.click.country} safe>
                  {countryLabel(e.click.country)}
                </td>
                <td class="optional" safe>{e.click.device}</td>
                <td class="optional" safe>{e.click.referer}</td>
                <td>
                  {customer ? (
                    <a href={workspacePath(slug, `/customers/${encodeURIComponent(customer.id)}`)} safe>
                      {customer.name || customer.email || customer.id}
                    </a>
                  ) : (
                    ''
                  )}
                </td>
                <td class="num">{e.event === 'sale' ? escapeHtml(formatMoney(e.saleAmount)) : ''}</td>
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
  page: number;
  events: EventRecord[];
  hasNext: boolean;
  /** The folder filter: '' every folder, `unsorted` outside folders, or a folder id. */
  folderId: string;
  folders: { id: string; name: string }[];
}

export function EventsPage(v: EventsView): JSX.Element {
  const slug = v.frame.workspace.slug;
  const query = (event: EventTab, page = 1) => {
    const q = new URLSearchParams({ event });
    if (v.folderId) q.set('folderId', v.folderId);
    if (page > 1) q.set('page', String(page));
    return q.toString();
  };
  const href = (event: EventTab, page = 1) => workspacePath(slug, `/events?${query(event, page)}`);
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
      <form method="get" action={workspacePath(slug, '/events')} class="toolbar" aria-label="Filters">
        <input type="hidden" name="event" value={v.tab} />
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
      {v.events.length === 0 ? <p>No {v.tab} on this page.</p> : <EventsTable slug={slug} events={v.events} />}
      <nav class="pager" aria-label="Pages">
        {v.page > 1 ? (
          <a href={href(v.tab, v.page - 1)} rel="prev">
            Newer
          </a>
        ) : (
          ''
        )}
        <span safe>{`Page ${v.page}`}</span>
        {v.hasNext ? (
          <a href={href(v.tab, v.page + 1)} rel="next">
            Older
          </a>
        ) : (
          ''
        )}
      </nav>
    </Layout>
  );
}

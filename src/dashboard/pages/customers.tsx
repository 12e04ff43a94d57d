/** Customers (routes/activity.tsx): the list, searchable and paged, and one customer's detail. */
import { escapeHtml } from '@kitajs/html';
import { formatMoney } from '../format.js';
import type { EventRecord } from '../../analytics/schema.js';
import type { CUSTOMER_SORT_FIELDS, CustomerResponse } from '../../customers/schema.js';
import { Layout, TableWrap, workspacePath, type Frame } from '../layout.js';
import { EventsTable } from './events.js';
import { countryLabel } from '../countries.js';

type WorkspaceFrame = Frame & { workspace: { slug: string } };

export interface CustomersView {
  frame: WorkspaceFrame;
  customers: CustomerResponse[];
  search: string;
  page: number;
  hasNext: boolean;
  /** The list's order (the API's `sortBy`/`sortOrder`); absent: newest customers first. */
  sort?: { by: CustomerSortField; order: 'asc' | 'desc' };
}

type CustomerSortField = (typeof CUSTOMER_SORT_FIELDS)[number];

/**
 * A column header that sorts the list: the first press sorts descending (the biggest revenue, the
 * newest customer first), the next reverses; `aria-sort` says which column the list follows.
 */
function SortHeader(p: { label: string; field: CustomerSortField; sort: { by: CustomerSortField; order: 'asc' | 'desc' }; href: (by: CustomerSortField, order: 'asc' | 'desc') => string; num?: boolean; optional?: boolean }): JSX.Element {
  const active = p.sort.by === p.field;
  const next = active && p.sort.order === 'desc' ? 'asc' : 'desc';
  const cls = [p.num ? 'num' : '', p.optional ? 'optional' : ''].filter(Boolean).join(' ') || undefined;
  return (
    <th scope="col" class={cls} aria-sort={active ? (p.sort.order === 'asc' ? 'ascending' : 'descending') : undefined}>
      <a href={p.href(p.field, next)} class="sort">
        <span safe>{p.label}</span>
        {active ? <span aria-hidden="true">{p.sort.order === 'asc' ? ' ↑' : ' ↓'}</span> : ''}
        <span class="visually-hidden">{next === 'asc' ? ', sort ascending' : ', sort descending'}</span>
      </a>
    </th>
  );
}

export function CustomersPage(v: CustomersView): JSX.Element {
  const slug = v.frame.workspace.slug;
  const sort = v.sort ?? { by: 'createdAt', order: 'desc' };
  const query = (over: Record<string, string>) => {
    const q = new URLSearchParams({ ...(v.search ? { search: v.search } : {}), ...(sort.by !== 'createdAt' || sort.order !== 'desc' ? { sortBy: sort.by, sortOrder: sort.order } : {}), ...over });
    return workspacePath(slug, `/customers?${q}`);
  };
  const href = (page: number) => query({ page: String(page) });
  const sortHref = (by: CustomerSortField, order: 'asc' | 'desc') => query({ sortBy: by, sortOrder: order });
  return (
    <Layout frame={v.frame} title="Customers" section="customers">
      <h1>Customers</h1>
      <form method="get" action={workspacePath(slug, '/customers')} class="toolbar" role="search">
        <label>
          Search
          <input type="search" name="search" value={v.search} maxlength="190" placeholder="Name, email or external id" />
        </label>
        {sort.by !== 'createdAt' || sort.order !== 'desc' ? (
          <>
            <input type="hidden" name="sortBy" value={sort.by} />
            <input type="hidden" name="sortOrder" value={sort.order} />
          </>
        ) : (
          ''
        )}
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {v.customers.length === 0 ? (
        <p>{v.search ? 'No customer matches this search.' : 'No customers yet: they appear when a lead is tracked (POST /track/lead).'}</p>
      ) : (
        <TableWrap label="Customers">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Country</th>
                <th scope="col" class="num">Sales</th>
                <SortHeader label="Revenue" field="saleAmount" sort={sort} href={sortHref} num />
                <SortHeader label="First sale" field="firstSaleAt" sort={sort} href={sortHref} optional />
                <SortHeader label="Customer since" field="createdAt" sort={sort} href={sortHref} optional />
              </tr>
            </thead>
            <tbody>
              {v.customers.map((c) => (
                <tr data-customer-id={c.id}>
                  <td>
                    <a href={workspacePath(slug, `/customers/${encodeURIComponent(c.id)}`)} safe>
                      {c.name}
                    </a>
                  </td>
                  <td safe>{c.email ?? ''}</td>
                  <td>{c.country ? escapeHtml(countryLabel(c.country)) : ''}</td>
                  <td class="num">{c.sales}</td>
                  <td class="num" safe>{formatMoney(c.saleAmount)}</td>
                  <td class="optional">{c.firstSaleAt ? <time datetime={c.firstSaleAt} safe>{c.firstSaleAt.slice(0, 10)}</time> : '—'}</td>
                  <td class="optional">
                    <time datetime={c.createdAt} safe>
                      {c.createdAt.slice(0, 10)}
                    </time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <nav class="pager" aria-label="Pages">
        {v.page > 1 ? <a href={href(v.page - 1)}>Previous</a> : ''}
        <span safe>{`Page ${v.page}`}</span>
        {v.hasNext ? <a href={href(v.page + 1)}>Next</a> : ''}
      </nav>
    </Layout>
  );
}

export function CustomerPage({ frame, customer, events }: { frame: WorkspaceFrame; customer: CustomerResponse; events: EventRecord[] }): JSX.Element {
  const slug = frame.workspace.slug;
  return (
    <Layout frame={frame} title={customer.name} section="customers">
      <p>
        <a href={workspacePath(slug, '/customers')}>← Customers</a>
      </p>
      <h1 safe>{customer.name}</h1>
      <dl class="facts">
        <dt>Email</dt>
        <dd safe>{customer.email ?? '—'}</dd>
        <dt>External id</dt>
        <dd safe>{customer.externalId}</dd>
        <dt>Country</dt>
        <dd>{customer.country ? escapeHtml(countryLabel(customer.country)) : '—'}</dd>
        <dt>Link</dt>
        <dd>
          {customer.link ? (
            <a href={workspacePath(slug, `/analytics?linkId=${encodeURIComponent(customer.link.id)}&interval=all`)} safe>
              {customer.link.shortLink}
            </a>
          ) : (
            '—'
          )}
        </dd>
        <dt>Sales</dt>
        <dd safe>{`${customer.sales} (${formatMoney(customer.saleAmount)})`}</dd>
        <dt>Customer since</dt>
        <dd safe>{customer.createdAt}</dd>
      </dl>
      <p>
        <a href={workspacePath(slug, `/customers/${encodeURIComponent(customer.id)}/journey`)}>Journey: every click, lead and sale, and revenue by model</a>
      </p>
      <h2>Events</h2>
      {events.length === 0 ? <p>No leads or sales recorded for this customer.</p> : <EventsTable slug={slug} events={events} />}
    </Layout>
  );
}

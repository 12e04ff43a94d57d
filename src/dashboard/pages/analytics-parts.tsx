/**
 * Pieces of the analytics pages (workspace analytics and a link's public stats): the totals, the
 * chart (drawn by chart.js with uPlot from the JSON in its `data-series` attribute; a table of the same figures for readers
 * without JavaScript or a screen) and the breakdown cards.
 *
 * @example
 * <Totals count={data.count} />
 * <SeriesChart data={data} />
 * <BreakdownCard card={data.cards[0]} href={(value) => `?country=${value}`} />
 */
import { ASSETS } from '../assets.js';
import { formatCount, formatMoney } from '../format.js';
import type { AnalyticsData, CardData } from '../analytics/load.js';
import { countryLabel, countryName } from '../countries.js';
import { SORT_KEYS, formatRate, ratesOf, type SortKey } from '../analytics/rates.js';
import type { ApiMetrics } from '../../analytics/shape.js';

const number = new Intl.NumberFormat('en-US');

/** `conversions: false` (a public page without them): clicks only, nothing else printed. */
export function Totals({ count, conversions = true }: { count: AnalyticsData['count']; conversions?: boolean }): JSX.Element {
  if (!conversions) {
    return (
      <dl class="totals" id="totals" data-clicks={String(count.clicks)}>
        <div>
          <dt>Clicks</dt>
          <dd safe>{number.format(count.clicks)}</dd>
        </div>
      </dl>
    );
  }
  return (
    <dl class="totals" id="totals" data-clicks={String(count.clicks)} data-leads={String(count.leads)} data-sales={String(count.sales)} data-sale-amount={String(count.saleAmount)}>
      <div>
        <dt>Clicks</dt>
        <dd safe>{number.format(count.clicks)}</dd>
      </div>
      <div>
        <dt>Leads</dt>
        <dd safe>{number.format(count.leads)}</dd>
      </div>
      <div>
        <dt>Sales</dt>
        <dd safe>{number.format(count.sales)}</dd>
      </div>
      <div>
        <dt>Revenue</dt>
        <dd safe>{formatMoney(count.saleAmount)}</dd>
      </div>
    </dl>
  );
}

/**
 * The funnel strip of the current filter: clicks → leads → sales → revenue, each step with its
 * rate from the one before (and revenue per click). The `dl#totals` with the four figures as data
 * attributes, as `Totals`, so a test reads it the same way.
 */
export function Funnel({ count }: { count: ApiMetrics }): JSX.Element {
  const r = ratesOf(count);
  return (
    <dl class="totals funnel" id="totals" data-clicks={String(count.clicks)} data-leads={String(count.leads)} data-sales={String(count.sales)} data-sale-amount={String(count.saleAmount)}>
      <div>
        <dt>Clicks</dt>
        <dd safe>{number.format(count.clicks)}</dd>
      </div>
      <div>
        <dt>Leads</dt>
        <dd safe>{number.format(count.leads)}</dd>
        <dd class="rate" safe>{`${formatRate(r.leadRate, count.clicks)} of clicks`}</dd>
      </div>
      <div>
        <dt>Sales</dt>
        <dd safe>{number.format(count.sales)}</dd>
        <dd class="rate" safe>{`${formatRate(r.saleRate, count.leads)} of leads`}</dd>
      </div>
      <div>
        <dt>Revenue</dt>
        <dd safe>{formatMoney(count.saleAmount)}</dd>
        <dd class="rate" safe>{`${count.clicks ? formatMoney(r.revenuePerClick) : '–'} per click`}</dd>
      </div>
    </dl>
  );
}

/**
 * The chart's mount point: chart.js draws uPlot into it from `data-series`, loading the library
 * from the two asset addresses. The data rides in an attribute: htmx drops <script> blocks (even
 * JSON) from swapped pages.
 */
export function ChartArea({ label, series }: { label: string; series: unknown }): JSX.Element {
  return <div id="analytics-chart" class="chart-area" role="img" aria-label={label} data-series={JSON.stringify(series)} data-uplot-src={ASSETS.uplot} data-uplot-css={ASSETS.uplotCss}></div>;
}

export function SeriesChart({ data, conversions = true }: { data: AnalyticsData; conversions?: boolean }): JSX.Element {
  const series = {
    timezone: data.timezone,
    x: data.series.map((p) => Math.round(Date.parse(p.start.replace(/([+-]\d\d)(\d\d)$/, '$1:$2')) / 1000)),
    clicks: data.series.map((p) => p.clicks),
    ...(conversions ? { leads: data.series.map((p) => p.leads), sales: data.series.map((p) => p.sales) } : {}),
  };
  return (
    <figure class="chart">
      <figcaption class="visually-hidden">Clicks, leads and sales over time</figcaption>
      {/* The data rides in an attribute: htmx drops <script> blocks (even JSON) from swapped pages. */}
      <ChartArea label="Chart of clicks, leads and sales over time" series={series} />
      <details class="chart-table">
        <summary>Show the figures as a table</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col" safe>{`Start (${data.timezone})`}</th>
                <th scope="col" class="num">Clicks</th>
                {conversions ? <th scope="col" class="num">Leads</th> : ''}
                {conversions ? <th scope="col" class="num">Sales</th> : ''}
              </tr>
            </thead>
            <tbody>
              {data.series.map((p) => (
                <tr>
                  <td safe>{p.start}</td>
                  <td class="num">{p.clicks}</td>
                  {conversions ? <td class="num">{p.leads}</td> : ''}
                  {conversions ? <td class="num">{p.sales}</td> : ''}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

const TRIGGER_LABELS: Record<string, string> = { qr: 'QR scans', link: 'Link clicks', pageview: 'Page views', deeplink: 'Deep links' };

/**
 * What a row is called: a link by its title (else its short link), a city with its country, a
 * trigger in words, others by their value.
 */
export function rowLabel(card: CardData, row: Record<string, unknown>): string {
  if (card.spec.groupBy === 'top_links') return String(row.title || row.shortLink || row.id || '');
  if (card.spec.groupBy === 'cities') return `${String(row.city ?? '')}, ${countryName(String(row.country ?? ''))}`;
  if (card.spec.groupBy === 'countries') return countryLabel(String(row.country ?? ''));
  if (card.spec.groupBy === 'triggers') return TRIGGER_LABELS[String(row.trigger)] ?? String(row.trigger ?? '');
  return String(row[card.spec.field] ?? '');
}

export interface CardLinks {
  /** The page with that row's value as a filter. */
  href?: (value: string) => string;
  /** The address that shows all the card's rows (or, expanded, the top ones again). */
  toggle?: string;
  /** The page sorted by a column (a plain link: sorting works without JavaScript). */
  sortHref?: (key: SortKey) => string;
}

/**
 * A breakdown card: per row clicks, leads, sales, revenue and the rates between them (clicks
 * only with `conversions: false`, a public page), each row a filter link, each column heading a
 * sort link.
 */
export function BreakdownCard({ card, href, toggle, sortHref, sort = 'clicks', conversions = true }: CardLinks & { card: CardData; sort?: SortKey; conversions?: boolean }): JSX.Element {
  const id = `card-${card.spec.groupBy}`;
  const columns = conversions ? SORT_KEYS : SORT_KEYS.filter((k) => k.key === 'clicks');
  return (
    <section class="breakdown" data-group={card.spec.groupBy} aria-labelledby={id}>
      <h2 id={id} safe>{card.spec.title}</h2>
      {card.rows.length === 0 ? (
        <p class="hint">No data in this range.</p>
      ) : (
        <div class="table-wrap" role="region" aria-labelledby={id} tabindex="0">
          <table>
            <thead>
              <tr>
                <th scope="col" safe>{card.spec.title}</th>
                {columns.map((c) => (
                  <th scope="col" class="num" aria-sort={conversions && sortHref && sort === c.key ? 'descending' : undefined}>
                    {sortHref && conversions ? (
                      <a href={`${sortHref(c.key)}#${id}`} data-sort={c.key}>
                        {c.label}
                      </a>
                    ) : (
                      <span>{c.label}</span>
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {card.rows.map((row) => {
                const value = String(row[card.spec.field] ?? '');
                const label = rowLabel(card, row);
                const r = ratesOf(row);
                const title = card.spec.groupBy === 'top_links' ? `${String(row.shortLink ?? '')} → ${String(row.url ?? '')}` : `Filter by ${label}`;
                return (
                  <tr
                    data-value={value}
                    data-clicks={String(row.clicks)}
                    data-leads={conversions ? String(row.leads) : undefined}
                    data-sales={conversions ? String(row.sales) : undefined}
                    data-sale-amount={conversions ? String(row.saleAmount) : undefined}>
                    <td class="url">
                      {href ? (
                        <a href={href(value)} title={title} safe>
                          {label}
                        </a>
                      ) : (
                        <span safe>{label}</span>
                      )}
                    </td>
                    <td class="num" safe>{number.format(row.clicks)}</td>
                    {conversions ? <td class="num" safe>{number.format(row.leads)}</td> : ''}
                    {conversions ? <td class="num" safe>{number.format(row.sales)}</td> : ''}
                    {conversions ? <td class="num" data-metric="revenue" safe>{formatMoney(row.saleAmount)}</td> : ''}
                    {conversions ? <td class="num" data-metric="lead-rate" safe>{formatRate(r.leadRate, row.clicks)}</td> : ''}
                    {conversions ? <td class="num" data-metric="sale-rate" safe>{formatRate(r.saleRate, row.leads)}</td> : ''}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {card.total > card.rows.length ? <p class="hint" safe>{`Top ${card.rows.length} of ${card.total}.`}</p> : ''}
      {toggle && (card.expanded || card.total > card.rows.length) ? (
        <p class="show-all">
          <a href={toggle} data-show-all={card.spec.groupBy} safe>
            {card.expanded ? 'Show the top rows' : `Show all ${formatCount(card.total)}`}
          </a>
        </p>
      ) : (
        ''
      )}
    </section>
  );
}

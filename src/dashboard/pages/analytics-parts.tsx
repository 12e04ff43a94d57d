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
      <div
        id="analytics-chart"
        class="chart-area"
        role="img"
        aria-label="Chart of clicks, leads and sales over time"
        data-series={JSON.stringify(series)}
        data-uplot-src={ASSETS.uplot}
        data-uplot-css={ASSETS.uplotCss}
      ></div>
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

/** What a row is called: a link by its short link, a city with its country, others by their value. */
function rowLabel(card: CardData, row: Record<string, unknown>): string {
  if (card.spec.groupBy === 'top_links') return String(row.shortLink ?? row.id ?? '');
  if (card.spec.groupBy === 'cities') return `${String(row.city ?? '')}, ${countryName(String(row.country ?? ''))}`;
  if (card.spec.groupBy === 'countries') return countryLabel(String(row.country ?? ''));
  return String(row[card.spec.field] ?? '');
}

/**
 * A breakdown card; with `href`, each row links to the page with that row's value as a filter;
 * with `toggle`, the address that shows all its rows (or, expanded, the top ones again).
 */
export function BreakdownCard({ card, href, toggle, conversions = true }: { card: CardData; href?: (value: string) => string; toggle?: string; conversions?: boolean }): JSX.Element {
  return (
    <section class="breakdown" data-group={card.spec.groupBy} aria-labelledby={`card-${card.spec.groupBy}`}>
      <h2 id={`card-${card.spec.groupBy}`} safe>{card.spec.title}</h2>
      {card.rows.length === 0 ? (
        <p class="hint">No data in this range.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col" safe>{card.spec.title}</th>
              <th scope="col" class="num">Clicks</th>
              {conversions ? <th scope="col" class="num">Leads</th> : ''}
              {conversions ? <th scope="col" class="num">Sales</th> : ''}
            </tr>
          </thead>
          <tbody>
            {card.rows.map((row) => {
              const value = String(row[card.spec.field] ?? '');
              const label = rowLabel(card, row);
              return (
                <tr
                  data-value={value}
                  data-clicks={String(row.clicks)}
                  data-leads={conversions ? String(row.leads) : undefined}
                  data-sales={conversions ? String(row.sales) : undefined}
                  data-sale-amount={conversions ? String(row.saleAmount) : undefined}>
                  <td class="url">
                    {href ? (
                      <a href={href(value)} title={`Filter by ${label}`} safe>
                        {label}
                      </a>
                    ) : (
                      <span safe>{label}</span>
                    )}
                  </td>
                  <td class="num" safe>{number.format(row.clicks)}</td>
                  {conversions ? <td class="num" safe>{number.format(row.leads)}</td> : ''}
                  {conversions ? <td class="num" safe>{number.format(row.sales)}</td> : ''}
                </tr>
              );
            })}
          </tbody>
        </table>
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

/**
 * Compare (routes/analytics.tsx): two to five links, tags or UTM campaigns on one chart (a line
 * of clicks each, drawn by chart.js from `data-series.lines`) and one table of clicks, leads,
 * sales, revenue and rates. The form works without JavaScript: what to compare, then up to five
 * choices, then Compare.
 */
import { ChartArea } from './analytics-parts.js';
import { formatMoney } from '../format.js';
import { Layout, workspacePath, type Frame } from '../layout.js';
import { COMPARE_KINDS, MAX_COMPARED, MIN_COMPARED, type ComparedItem, type CompareKind } from '../analytics/compare.js';
import { INTERVAL_LABELS, queryString, type PageParams } from '../analytics/query.js';
import { formatRate, ratesOf } from '../analytics/rates.js';
import { INTERVALS } from '../../analytics/range.js';

const number = new Intl.NumberFormat('en-US');

export interface CompareView {
  frame: Frame & { workspace: { slug: string } };
  range: PageParams;
  kind: CompareKind;
  /** The choices of the kind: value → label. */
  choices: { value: string; label: string }[];
  chosen: string[];
  items: ComparedItem[];
  timezone: string;
}

export function ComparePage(v: CompareView): JSX.Element {
  const base = workspacePath(v.frame.workspace.slug, '/analytics');
  const labelOf = (value: string) => v.choices.find((c) => c.value === value)?.label ?? value;
  const x = (v.items[0]?.series ?? []).map((p) => Math.round(Date.parse(p.start.replace(/([+-]\d\d)(\d\d)$/, '$1:$2')) / 1000));
  const series = { timezone: v.timezone, x, lines: v.items.map((i) => ({ label: labelOf(i.value), values: i.series.map((p) => p.clicks) })) };
  const slots = Array.from({ length: MAX_COMPARED }, (_, i) => v.chosen[i] ?? '');
  return (
    <Layout frame={v.frame} title="Compare" section="analytics" chart>
      <div class="heading">
        <h1>Compare</h1>
        <a href={`${base}${queryString(v.range)}`}>Back to analytics</a>
      </div>
      <form method="get" action={`${base}/compare`} class="toolbar analytics-range" aria-label="What to compare">
        <label>
          Compare
          <select name="by">
            {COMPARE_KINDS.map((k) => (
              <option value={k.kind} selected={k.kind === v.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Interval
          <select name="interval">
            {INTERVALS.map((i) => (
              <option value={i} selected={(v.range.interval ?? '30d') === i} safe>
                {INTERVAL_LABELS[i]}
              </option>
            ))}
          </select>
        </label>
        {slots.map((value, i) => (
          <label>
            <span safe>{`Choice ${i + 1}`}</span>
            <select name="id">
              <option value="">None</option>
              {v.choices.map((c) => (
                <option value={c.value} selected={c.value === value} safe>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
        ))}
        {v.range.timezone ? <input type="hidden" name="timezone" value={v.range.timezone} /> : ''}
        <button type="submit">Compare</button>
      </form>
      {v.items.length < MIN_COMPARED ? (
        <p class="hint">{`Choose ${MIN_COMPARED} to ${MAX_COMPARED} to compare (after changing what to compare, press Compare to list its choices).`}</p>
      ) : (
        <>
          <figure class="chart">
            <figcaption class="visually-hidden">Clicks over time, one line each</figcaption>
            <ChartArea label="Chart of clicks over time, one line per choice" series={series} />
          </figure>
          <div class="table-wrap" role="region" aria-label="Comparison" tabindex="0">
            <table class="compare">
              <thead>
                <tr>
                  <th scope="col">Compared</th>
                  <th scope="col" class="num">Clicks</th>
                  <th scope="col" class="num">Leads</th>
                  <th scope="col" class="num">Sales</th>
                  <th scope="col" class="num">Revenue</th>
                  <th scope="col" class="num">Click → lead</th>
                  <th scope="col" class="num">Lead → sale</th>
                </tr>
              </thead>
              <tbody>
                {v.items.map((i) => {
                  const r = ratesOf(i.count);
                  return (
                    <tr data-value={i.value} data-clicks={String(i.count.clicks)} data-leads={String(i.count.leads)} data-sales={String(i.count.sales)} data-sale-amount={String(i.count.saleAmount)}>
                      <th scope="row" class="url" safe>{labelOf(i.value)}</th>
                      <td class="num" safe>{number.format(i.count.clicks)}</td>
                      <td class="num" safe>{number.format(i.count.leads)}</td>
                      <td class="num" safe>{number.format(i.count.sales)}</td>
                      <td class="num" safe>{formatMoney(i.count.saleAmount)}</td>
                      <td class="num" safe>{formatRate(r.leadRate, i.count.clicks)}</td>
                      <td class="num" safe>{formatRate(r.saleRate, i.count.leads)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Layout>
  );
}

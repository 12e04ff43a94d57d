/**
 * Analytics (routes/analytics.tsx): the range (interval presets, or a custom start/end with a
 * time zone), the filters, the totals, the chart and the breakdown cards. Every figure comes from
 * the API's analytics service for the page's own query string; a click on a card's row is a plain
 * link to this page with that filter added.
 */
import { INTERVALS } from '../../analytics/range.js';
import type { AnalyticsData } from '../analytics/load.js';
import { CUSTOM_INTERVAL, FILTERS, INTERVAL_LABELS, queryString, withFilter, withoutFilter, type FilterParam, type PageParams } from '../analytics/query.js';
import type { SortKey } from '../analytics/rates.js';
import { Layout, workspacePath, type Frame } from '../layout.js';
import { OUTSIDE_FOLDERS } from '../folder-view.js';
import { BreakdownCard, Funnel, SeriesChart } from './analytics-parts.js';
import { countryLabel } from '../countries.js';
import { ATTRIBUTION_MODELS } from '../../attribution/models.js';
import { MODEL_LABELS } from './journey.js';
import { LinkPicker } from './link-picker.js';

export interface AnalyticsView {
  frame: Frame & { workspace: { slug: string } };
  params: PageParams;
  data: AnalyticsData;
  /** Choices for the link/domain/tag/folder filters: value → label. */
  choices: Partial<Record<FilterParam, { value: string; label: string }[]>>;
  /** What was typed in the link search (the choices of `linkId` are its matches). */
  linkSearch: string;
  /** The chosen link's name (its title, else its short link), for the filter chip. */
  linkName?: string;
}

/** What an active filter's chip says: a link by its name, a country by its name, others as they are. */
function chipValue(param: FilterParam, value: string, linkName?: string): string {
  if (param === 'linkId') return linkName ?? value;
  if (param === 'country') return countryLabel(value);
  if (param === 'trigger') return value === 'qr' ? 'QR scans' : value === 'link' ? 'Link clicks' : value;
  return value;
}

const COMMON_ZONES = ['UTC', 'America/Los_Angeles', 'America/New_York', 'Europe/London', 'Europe/Berlin', 'Asia/Tokyo', 'Australia/Sydney'];

export function AnalyticsPage(v: AnalyticsView): JSX.Element {
  const { frame, params, data } = v;
  const base = workspacePath(frame.workspace.slug, '/analytics');
  const sort = data.sort;
  // The sort rides along every link of the page (it is not a filter: the export and the presets keep it too).
  const href = (p: PageParams, s: SortKey = sort) => `${base}${queryString((s === 'clicks' ? p : { ...p, sort: s }) as PageParams)}`;
  const active = FILTERS.filter((f) => params[f.param]);
  const zones = params.timezone && !COMMON_ZONES.includes(params.timezone) ? [params.timezone, ...COMMON_ZONES] : COMMON_ZONES;
  const custom = !!params.start;
  return (
    <Layout frame={frame} title="Analytics" section="analytics" chart>
      <div class="heading">
        <h1>Analytics</h1>
        <p class="actions">
          <a href={`${base}/compare${queryString({ interval: params.interval, start: params.start, end: params.end, timezone: params.timezone })}`}>Compare</a>{' '}
          <a href={`${base}/export${queryString((sort === 'clicks' ? params : { ...params, sort }) as PageParams)}`} hx-boost="false">
            Export CSV
          </a>
        </p>
      </div>
      <form method="get" action={base} class="toolbar analytics-range" aria-label="Range and filters">
        <label>
          Interval
          <select name="interval">
            {INTERVALS.map((i) => (
              <option value={i} selected={!custom && (params.interval ?? '24h') === i} safe>
                {INTERVAL_LABELS[i]}
              </option>
            ))}
            <option value={CUSTOM_INTERVAL} selected={custom}>
              Custom dates
            </option>
          </select>
        </label>
        <label>
          From
          <input type="date" name="start" value={params.start?.slice(0, 10) ?? ''} />
        </label>
        <label>
          To
          <input type="date" name="end" value={params.end?.slice(0, 10) ?? ''} />
        </label>
        <label>
          Time zone
          <select name="timezone">
            {zones.map((z) => (
              <option value={z} selected={(params.timezone ?? 'UTC') === z} safe>
                {z}
              </option>
            ))}
          </select>
        </label>
        <label>
          Attribution
          <select name="attribution">
            {ATTRIBUTION_MODELS.map((m) => (
              <option value={m} selected={(params.attribution ?? 'last_click') === m} safe>
                {MODEL_LABELS[m]}
              </option>
            ))}
          </select>
        </label>
        <LinkPicker id="link-choices" optionsUrl={`${base}/link-options`} search={v.linkSearch} links={v.choices.linkId ?? []} selected={[params.linkId ?? '']} />
        {(['domain', 'tagIds', 'folderId'] as const).map((param) => (
          <label>
            {FILTERS.find((f) => f.param === param)!.label}
            <select name={param}>
              <option value="">{param === 'folderId' ? 'All folders' : 'Any'}</option>
              {param === 'folderId' ? (
                <option value={OUTSIDE_FOLDERS} selected={params.folderId === OUTSIDE_FOLDERS}>
                  Outside folders
                </option>
              ) : (
                ''
              )}
              {(v.choices[param] ?? []).map((c) => (
                <option value={c.value} selected={params[param] === c.value} safe>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
        ))}
        {FILTERS.filter((f) => !['linkId', 'domain', 'tagIds', 'folderId'].includes(f.param) && params[f.param]).map((f) => (
          <input type="hidden" name={f.param} value={params[f.param]} />
        ))}
        {/* The dates the form was drawn with: a changed date means custom dates, a changed interval the preset. */}
        <input type="hidden" name="shownStart" value={params.start?.slice(0, 10) ?? ''} />
        <input type="hidden" name="shownEnd" value={params.end?.slice(0, 10) ?? ''} />
        {sort === 'clicks' ? '' : <input type="hidden" name="sort" value={sort} />}
        <button type="submit">Apply</button>
      </form>
      <p class="hint">Choose an interval, or type dates (whole days in the chosen time zone) for a custom range.</p>
      <nav class="tabs presets" aria-label="Interval presets">
        <ul>
          {(['24h', '7d', '30d', '90d', '1y', 'all'] as const).map((i) => {
            const { start: _s, end: _e, ...rest } = params;
            const current = !custom && (params.interval ?? '24h') === i;
            return (
              <li>
                <a href={href({ ...rest, interval: i })} aria-current={current ? 'page' : undefined} safe>
                  {INTERVAL_LABELS[i]}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      {active.length ? (
        <ul class="active-filters" aria-label="Active filters">
          {active.map((f) => (
            <li>
              <span safe>{`${f.label}: ${chipValue(f.param, String(params[f.param] ?? ''), v.linkName)}`}</span>{' '}
              <a href={href(withoutFilter(params, f.param))} aria-label={`Remove the filter ${f.label}`}>
                ✕
              </a>
            </li>
          ))}
        </ul>
      ) : (
        ''
      )}
      <Funnel count={data.count} />
      <SeriesChart data={data} />
      <div class="cards">
        {data.cards.map((card) => (
          <BreakdownCard
            card={card}
            href={(value) => href(withFilter(params, card.spec.filter, value))}
            toggle={`${card.expanded ? href(params) : href({ ...params, show: card.spec.groupBy } as PageParams)}#card-${card.spec.groupBy}`}
            sort={sort}
            sortHref={(key) => href((card.expanded ? { ...params, show: card.spec.groupBy } : params) as PageParams, key)}
          />
        ))}
      </div>
    </Layout>
  );
}

/**
 * A link's A/B test (routes/insights.tsx): the verdict, a table of the variants (clicks, leads,
 * sales, revenue, the metric's rate with its 95 % interval, p against the leader) and a chart of
 * each variant's cumulative rate over time (chart.js, `lines`), with the same figures as a table.
 *
 * @example
 * <AbTestPage frame={frame} link={link} report={report} />
 */
import { ChartArea } from './analytics-parts.js';
import { formatCount, formatMoney } from '../format.js';
import { CsrfField, Layout, workspacePath, type Frame } from '../layout.js';
import type { AbTestReport, AbTestSettingsView } from '../../ab-tests/service.js';
import { ON_INCONCLUSIVE, TEST_METRICS, type OnInconclusive, type TestMetric } from '../../ab-tests/verdict.js';
import { can } from '../../users/roles.js';

type WorkspaceFrame = Frame & { workspace: { slug: string } };

const METRIC_LABELS: Record<TestMetric, string> = { leads: 'Leads per click', clicks: 'Share of clicks', sales: 'Sales per click', revenue: 'Revenue per click' };
const INCONCLUSIVE_LABELS: Record<OnInconclusive, string> = { keep_splitting: 'Keep splitting traffic', stop: "Stop: send everyone to the link's URL" };

/** What the redirect does since the test completed, in a sentence. */
function routeSentence(report: AbTestReport): string {
  const s = report.settled;
  if (!s) return report.verdict.completed ? 'Being decided: traffic keeps splitting until then (within a minute).' : 'The test is running: traffic is split between the variants.';
  if (s.route === 'winner') return `Every visit goes to the winner, ${s.url}.`;
  return s.route === 'stop' ? "Stopped without a winner: every visit goes to the link's URL." : 'Ended without a winner: traffic keeps splitting.';
}

/** The metrics a test can be decided on, as the `metric` field of a form (the settings form and the result view). */
function MetricSelect({ selected }: { selected: TestMetric }): JSX.Element {
  return (
    <select name="metric">
      {TEST_METRICS.map((m) => (
        <option value={m} selected={m === selected}>
          {m}
        </option>
      ))}
    </select>
  );
}

/** The stored settings: a form for those who may change links, the values for viewers. */
function SettingsForm({ frame, action, settings, saved }: { frame: WorkspaceFrame; action: string; settings: AbTestSettingsView; saved: boolean }): JSX.Element {
  if (!can(frame.role!, 'links.write')) {
    return (
      <dl class="facts" id="ab-settings">
        <dt>Decided on</dt>
        <dd>{settings.metric}</dd>
        <dt>Without a winner</dt>
        <dd safe>{INCONCLUSIVE_LABELS[settings.onInconclusive]}</dd>
      </dl>
    );
  }
  return (
    <form method="post" action={action} class="toolbar" id="ab-settings">
      <CsrfField token={frame.csrf} />
      <label>
        Decide the winner on
        <MetricSelect selected={settings.metric} />
      </label>
      <label>
        Without a significant winner
        <select name="onInconclusive">
          {ON_INCONCLUSIVE.map((o) => (
            <option value={o} selected={o === settings.onInconclusive} safe>
              {INCONCLUSIVE_LABELS[o]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Save settings</button>
      {saved ? (
        <span role="status" class="hint">
          Saved.
        </span>
      ) : (
        ''
      )}
    </form>
  );
}

const STATUS_LABELS = { insufficient_data: 'Not yet significant', not_significant: 'Not significant', significant: 'Significant' } as const;

/** A rate as the page prints it: a percentage, or money per click for revenue. */
function formatRate(metric: TestMetric, rate: number): string {
  return metric === 'revenue' ? formatMoney(Math.round(rate)) : `${(rate * 100).toFixed(2)} %`;
}

/** Each variant's cumulative rate at the end of each bucket (what the chart draws). */
export function cumulativeRates(report: AbTestReport): number[][] {
  return report.variants.map((_, i) => {
    let clicks = 0;
    let hits = 0;
    let all = 0;
    return report.timeseries.map((p) => {
      const v = p.variants[i]!;
      clicks += v.clicks;
      all += p.variants.reduce((s, x) => s + x.clicks, 0);
      hits += report.metric === 'leads' ? v.leads : report.metric === 'sales' ? v.sales : report.metric === 'revenue' ? v.saleAmount : v.clicks;
      const base = report.metric === 'clicks' ? all : clicks;
      const rate = base ? hits / base : 0;
      return report.metric === 'revenue' ? Math.round(rate) / 100 : Math.round(rate * 10_000) / 100;
    });
  });
}

export function AbTestPage({ frame, link, report, settings, saved = false }: { frame: WorkspaceFrame; link: { id: string; shortLink: string }; report: AbTestReport; settings: AbTestSettingsView; saved?: boolean }): JSX.Element {
  const slug = frame.workspace.slug;
  const base = workspacePath(slug, `/links/${encodeURIComponent(link.id)}/ab-test`);
  const v = report.verdict;
  const rates = cumulativeRates(report);
  const headline: string = v.winner ? `Winner: ${v.winner}` : STATUS_LABELS[v.status];
  const series = {
    timezone: 'UTC',
    x: report.timeseries.map((p) => Math.round(Date.parse(p.start) / 1000)),
    unit: report.metric === 'revenue' ? '$' : '%',
    lines: report.variants.map((variant, i) => ({ label: `Variant ${i + 1}`, values: rates[i] })),
  };
  return (
    <Layout frame={frame} title="A/B test" section="links" chart>
      <p>
        <a href={workspacePath(slug, '/links')}>← Links</a>
      </p>
      <h1>
        A/B test of <span safe>{link.shortLink}</span>
      </h1>
      <h2>Settings</h2>
      <SettingsForm frame={frame} action={`${base}/settings`} settings={settings} saved={saved} />
      <h2>Result</h2>
      <form method="get" action={base} class="toolbar">
        <label>
          Show as decided on
          <MetricSelect selected={report.metric} />
        </label>
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      <p class={`notice verdict ${v.status}`} role="status" id="ab-verdict" data-status={v.status} data-winner={v.winner ?? ''}>
        <strong safe>{headline}</strong> <span safe>{v.reason}</span>
      </p>
      <dl class="facts">
        <dt>Started</dt>
        <dd safe>{report.testStartedAt ?? report.window.from}</dd>
        <dt>Completes</dt>
        <dd safe>{report.testCompletedAt ?? '—'}</dd>
        <dt>Traffic</dt>
        <dd id="ab-route" data-route={report.settled?.route ?? ''} safe>
          {routeSentence(report)}
        </dd>
        <dt>Method</dt>
        <dd safe>{`Two-proportion z-test against the leader (Welch's test for revenue), p < ${v.threshold}; at least 100 clicks and 5 expected conversions per variant.`}</dd>
      </dl>
      <div class="table-wrap">
        <table id="ab-variants">
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col" class="num">Share</th>
              <th scope="col" class="num">Clicks</th>
              <th scope="col" class="num">Leads</th>
              <th scope="col" class="num">Sales</th>
              <th scope="col" class="num">Revenue</th>
              <th scope="col" class="num" safe>{METRIC_LABELS[report.metric]}</th>
              <th scope="col" class="num">95 % interval</th>
              <th scope="col" class="num">p vs leader</th>
            </tr>
          </thead>
          <tbody>
            {report.variants.map((variant, i) => (
              <tr data-url={variant.url} class={variant.url === v.leader ? 'leader' : ''}>
                <td>
                  <span safe>{`${i + 1}. `}</span>
                  <a href={variant.url} rel="noopener noreferrer" safe>
                    {variant.url}
                  </a>
                </td>
                <td class="num" safe>{`${variant.percentage} %`}</td>
                <td class="num" safe>{formatCount(variant.clicks)}</td>
                <td class="num" safe>{formatCount(variant.leads)}</td>
                <td class="num" safe>{formatCount(variant.sales)}</td>
                <td class="num" safe>{formatMoney(variant.saleAmount)}</td>
                <td class="num" safe>{formatRate(report.metric, variant.rate)}</td>
                <td class="num" safe>{`${formatRate(report.metric, variant.interval.low)} – ${formatRate(report.metric, variant.interval.high)}`}</td>
                <td class="num" safe>{variant.pValue === null ? '—' : variant.pValue < 0.0001 ? '< 0.0001' : variant.pValue.toFixed(4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <figure class="chart">
        <figcaption safe>{`${METRIC_LABELS[report.metric]} so far, by variant (UTC, ${report.bucketDays}-day steps)`}</figcaption>
        <ChartArea label="Chart of each variant's cumulative rate over time" series={series} />
        <details class="chart-table">
          <summary>Show the figures as a table</summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Start (UTC)</th>
                  {report.variants.map((_, i) => (
                    <th scope="col" class="num" safe>{`Variant ${i + 1}`}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {report.timeseries.map((p, b) => (
                  <tr>
                    <td safe>{p.start.slice(0, 10)}</td>
                    {report.variants.map((_, i) => (
                      <td class="num" safe>{`${rates[i]![b]}${series.unit === '$' ? ' $' : ' %'}`}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </figure>
    </Layout>
  );
}

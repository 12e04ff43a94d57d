/**
 * A link's public stats (routes/public-stats.tsx): readable without logging in, for links with
 * `publicStats: true`. Only that link's figures: totals, the chart and a few cards, no filters
 * beyond the interval, and nothing about its workspace.
 */
import type { AnalyticsData } from '../analytics/load.js';
import { Head } from '../layout.js';
import { BreakdownCard, SeriesChart, Totals } from './analytics-parts.js';

/** The public stats page of a link: `/stats/<domain>/<key>` (each key segment encoded). */
export function publicStatsPath(domain: string, key: string): string {
  return `/stats/${encodeURIComponent(domain)}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

export const PUBLIC_INTERVALS = [
  { interval: '24h', label: '24 hours' },
  { interval: '7d', label: '7 days' },
  { interval: '30d', label: '30 days' },
  { interval: '90d', label: '90 days' },
  { interval: 'all', label: 'All time' },
] as const;

/** `conversions`: the owner chose to show leads, sales and revenue; otherwise clicks only. */
export function PublicStatsPage({ shortLink, path, interval, data, conversions }: { shortLink: string; path: string; interval: string; data: AnalyticsData; conversions: boolean }): JSX.Element {
  const title = `Stats of ${shortLink}`;
  return (
    <>
      {'<!doctype html>'}
      <html lang="en">
        <Head title={title} chart />
        <body class="public">
          <main id="main" class="public-stats">
            <p class="brand">Waymark</p>
            <h1 safe>{title}</h1>
            <nav class="tabs" aria-label="Interval">
              <ul>
                {PUBLIC_INTERVALS.map((i) => (
                  <li>
                    <a href={`${path}?interval=${i.interval}`} aria-current={i.interval === interval ? 'page' : undefined}>
                      {i.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
            <Totals count={data.count} conversions={conversions} />
            <SeriesChart data={data} conversions={conversions} />
            <div class="cards">
              {data.cards.map((card) => (
                <BreakdownCard card={card} conversions={conversions} />
              ))}
            </div>
          </main>
        </body>
      </html>
    </>
  );
}

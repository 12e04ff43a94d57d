/**
 * A customer's journey (routes/insights.tsx): every click, lead and sale in time order, and the
 * revenue each attribution model credits to each link, side by side.
 *
 * @example
 * <JourneyPage frame={frame} journey={journey} />
 */
import { formatMoney } from '../format.js';
import { Layout, workspacePath, type Frame } from '../layout.js';
import type { Journey } from '../../journeys/service.js';
import { ATTRIBUTION_MODELS, type AttributionModel } from '../../attribution/models.js';

type WorkspaceFrame = Frame & { workspace: { slug: string } };

export const MODEL_LABELS: Record<AttributionModel, string> = {
  last_click: 'Last click',
  first_click: 'First click',
  linear: 'Linear',
  time_decay: 'Time decay (7-day half-life)',
  position_based: 'Position-based (40/20/40)',
};

const EVENT_LABELS = { click: 'Click', lead: 'Lead', sale: 'Sale' } as const;

export function JourneyPage({ frame, journey }: { frame: WorkspaceFrame; journey: Journey }): JSX.Element {
  const slug = frame.workspace.slug;
  const c = journey.customer;
  // Every link any model credits, in the order of the last-click figures then the rest.
  const linkIds = [...new Set(ATTRIBUTION_MODELS.flatMap((m) => journey.attribution[m].map((x) => x.linkId)))];
  const names = new Map(ATTRIBUTION_MODELS.flatMap((m) => journey.attribution[m].map((x) => [x.linkId, x.domain && x.key ? `${x.domain}/${x.key}` : x.linkId] as const)));
  const credit = (m: AttributionModel, linkId: string) => journey.attribution[m].find((x) => x.linkId === linkId)?.saleAmount ?? 0;
  return (
    <Layout frame={frame} title={`Journey of ${c.name}`} section="customers">
      <p>
        <a href={workspacePath(slug, `/customers/${encodeURIComponent(c.id)}`)}>← Customer</a>
      </p>
      <h1>
        Journey of <span safe>{c.name}</span>
      </h1>
      {journey.events.length === 0 ? (
        <p>No clicks, leads or sales recorded for this customer.</p>
      ) : (
        <div class="table-wrap">
          <table id="journey-events">
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Event</th>
                <th scope="col">Link</th>
                <th scope="col">Name</th>
                <th scope="col" class="num">Amount</th>
                <th scope="col">Country</th>
                <th scope="col">Referer</th>
              </tr>
            </thead>
            <tbody>
              {journey.events.map((e) => (
                <tr data-event={e.event}>
                  <td safe>{e.timestamp.replace('T', ' ').slice(0, 19)}</td>
                  <td>{EVENT_LABELS[e.event]}</td>
                  <td>
                    <a href={workspacePath(slug, `/analytics?linkId=${encodeURIComponent(e.link.id)}&interval=all`)} safe>
                      {`${e.link.domain}/${e.link.key}`}
                    </a>
                  </td>
                  <td safe>{e.eventName ?? ''}</td>
                  <td class="num" safe>{e.saleAmount === null ? '' : formatMoney(e.saleAmount)}</td>
                  <td safe>{e.country ?? ''}</td>
                  <td safe>{e.referer ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {journey.truncated ? <p class="notice">This journey has more events than a page shows: the oldest are listed.</p> : ''}
      <h2>Revenue by link under each model</h2>
      <p safe>{`Clicks up to ${journey.lookbackDays} days before a sale share it (docs/attribution.md).`}</p>
      {linkIds.length === 0 ? (
        <p>No sales yet.</p>
      ) : (
        <div class="table-wrap">
          <table id="journey-credit">
            <thead>
              <tr>
                <th scope="col">Link</th>
                {ATTRIBUTION_MODELS.map((m) => (
                  <th scope="col" class="num" safe>{MODEL_LABELS[m]}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {linkIds.map((id) => (
                <tr>
                  <td safe>{names.get(id) ?? id}</td>
                  {ATTRIBUTION_MODELS.map((m) => (
                    <td class="num" data-model={m} safe>{formatMoney(credit(m, id))}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Layout>
  );
}

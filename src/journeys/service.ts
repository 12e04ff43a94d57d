/**
 * A customer's journey: every click that led to one of their leads (a click id their leads
 * carry, on any link), their leads and their sales, oldest first, with the revenue each
 * attribution model credits to each link. Read-only, through the event store.
 *
 * @example
 * const journey = await journeys.of(workspaceId, 'ext_user_42', { lookbackDays: 90 });
 */
import { buildScope, type AggregateSpec, type EventRow, type EventLog } from '../events/index.js';
import type { CustomerResponse } from '../customers/schema.js';
import type { CustomerService } from '../customers/service.js';
import { ATTRIBUTION_MODELS, DEFAULT_ATTRIBUTION, revenueByLink, type AttributionModel } from '../attribution/models.js';
import { journeyTouches } from '../attribution/touches.js';

/** Events one journey shows at most (a customer with more is cut, and says so). */
export const MAX_JOURNEY_EVENTS = 2000;
const DAY_MS = 86_400_000;

export interface JourneyEvent {
  event: 'click' | 'lead' | 'sale';
  timestamp: string;
  clickId: string | null;
  link: { id: string; domain: string; key: string };
  url: string | null;
  country: string | null;
  device: string | null;
  referer: string | null;
  eventName: string | null;
  saleAmount: number | null;
  invoiceId: string | null;
}

export interface JourneyCredit {
  linkId: string;
  domain: string | null;
  key: string | null;
  sales: number;
  saleAmount: number;
}

export interface Journey {
  customer: CustomerResponse;
  events: JourneyEvent[];
  truncated: boolean;
  lookbackDays: number;
  attribution: Record<AttributionModel, JourneyCredit[]>;
}

export interface JourneyServiceDeps {
  customers: Pick<CustomerService, 'get'>;
  events: Pick<EventLog, 'page'>;
  now: () => number;
}

export function createJourneyService(deps: JourneyServiceDeps) {
  async function rowsOf(workspaceId: string, customerId: string): Promise<{ rows: EventRow[]; truncated: boolean }> {
    const scope = buildScope({ workspaceId, links: {}, named: false, everyFolder: true });
    const spec: AggregateSpec = { workspaceId, kinds: ['click', 'lead', 'sale'], group: [], timeseries: false, dims: [], conversions: { customerId }, scope };
    const rows = await deps.events.page(spec, { from: 0, to: deps.now() + 1 }, { order: 'asc', limit: MAX_JOURNEY_EVENTS + 1, offset: 0 });
    return { rows: rows.slice(0, MAX_JOURNEY_EVENTS), truncated: rows.length > MAX_JOURNEY_EVENTS };
  }

  return {
    async of(workspaceId: string, idOrExternal: string, q: { lookbackDays?: number } = {}): Promise<Journey> {
      const customer = await deps.customers.get(workspaceId, idOrExternal, false);
      const { rows, truncated } = await rowsOf(workspaceId, customer.id);
      const lookbackDays = q.lookbackDays ?? DEFAULT_ATTRIBUTION.lookbackMs / DAY_MS;
      const options = { ...DEFAULT_ATTRIBUTION, lookbackMs: lookbackDays * DAY_MS };
      const { touches, sales } = journeyTouches(rows);
      const names = new Map(rows.map((r) => [r.link_id, { domain: r.domain, key: r.key }]));
      const attribution = Object.fromEntries(
        ATTRIBUTION_MODELS.map((m) => [
          m,
          [...revenueByLink(m, sales, touches, options)]
            .map(([linkId, c]) => ({ linkId, domain: names.get(linkId)?.domain ?? null, key: names.get(linkId)?.key ?? null, sales: round(c.sales), saleAmount: c.cents }))
            .sort((a, b) => b.saleAmount - a.saleAmount || (a.linkId < b.linkId ? -1 : 1)),
        ]),
      ) as Record<AttributionModel, JourneyCredit[]>;
      return { customer, events: rows.map(toJourneyEvent), truncated, lookbackDays, attribution };
    },
  };
}

function toJourneyEvent(r: EventRow): JourneyEvent {
  return {
    event: r.kind,
    timestamp: new Date(Number(r.timestamp)).toISOString(),
    clickId: r.click_id || null,
    link: { id: r.link_id, domain: r.domain, key: r.key },
    url: r.url || null,
    country: r.country || null,
    device: r.device || null,
    referer: r.referer || null,
    eventName: r.kind === 'click' ? null : r.event_name ?? null,
    saleAmount: r.kind === 'sale' ? Number(r.amount ?? 0) : null,
    invoiceId: r.kind === 'sale' ? r.invoice_id ?? null : null,
  };
}

/** Fractional sales to 4 decimals (a share of a sale). */
function round(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

export type JourneyService = ReturnType<typeof createJourneyService>;

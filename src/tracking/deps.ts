/**
 * What the lead and sale services are built from, and the look-ups both share.
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import type { ConversionStore, EventLog, LinkCounters } from '../events/index.js';
import type { ClickLookup } from '../redirect/module.js';
import type { CustomerStore } from '../customers/store.js';
import { ApiError } from '../http/errors.js';
import { createTrackingStore, type LinkRow } from './store.js';
import type { AttributionSource } from './attribution.js';
import type { KeyedSerialQueue } from './serial.js';

export interface TrackDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The event log: clicks not held by the redirect module any more. */
  events: Pick<EventLog, 'findClick'>;
  /** Leads and sales, in the caller's transaction; `afterCommit()` once it committed. */
  conversions: ConversionStore<Kysely<Database>>;
  /** The links' lead and sale counters, updated in the same transaction as the events. */
  counters: LinkCounters;
  now: () => number;
  /** The redirect module's click lookup (covers clicks not yet flushed). */
  clicks: ClickLookup;
  /** A customer store bound to a database handle or transaction. */
  customers: (handle: Kysely<Database>) => CustomerStore;
  queue: KeyedSerialQueue;
}

/** Logger of the request that started the work (pino-compatible). */
export type Log = Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'>;

/** Queue key of one customer of one workspace. */
export function customerKey(workspaceId: string, externalId: string): string {
  return `${workspaceId}\u0000${externalId}`;
}

/**
 * The click row of this workspace: first from the redirect module (which also sees its unflushed
 * batch), then from the event log, so tracking also works for clicks written by any other path.
 * A click of another workspace is not found, exactly like a missing one.
 */
export async function findClickOrThrow(deps: TrackDeps, workspaceId: string, clickId: string): Promise<AttributionSource> {
  const click = (await deps.clicks.findClick(workspaceId, clickId)) ?? (await deps.events.findClick(workspaceId, clickId));
  if (!click) throw new ApiError('not_found', `Click not found for clickId: ${clickId} (no click with this id in this workspace).`);
  return click;
}

/** The link an event is attributed to; missing or disabled links stop the tracking with 404. */
export async function findLinkOrThrow(
  deps: TrackDeps,
  workspaceId: string,
  source: AttributionSource,
  what: 'lead' | 'sale',
): Promise<LinkRow> {
  const link = await createTrackingStore(deps.db).findLink(workspaceId, source.link_id);
  if (!link) throw new ApiError('not_found', `Link not found for clickId: ${source.click_id}; ${what} not tracked.`);
  if (link.disabled_at !== null) {
    throw new ApiError('not_found', `Link ${link.id} of clickId ${source.click_id} is disabled; ${what} not tracked.`);
  }
  return link;
}

/** Customer fields a track request may carry. */
export interface CustomerInput {
  customerName?: string | null;
  customerEmail?: string | null;
  customerAvatar?: string | null;
}

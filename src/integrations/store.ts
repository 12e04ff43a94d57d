/**
 * SQL of the integrations (migrations 0028, 0029): each workspace's sealed secrets, the log of
 * deliveries by the provider's event id, and how much of each sale has been refunded.
 *
 * @example
 * const store = createIntegrationStore(db);
 * if ((await store.claim(row)) === 'claimed') { … await store.finish(key, 'recorded', 'Sale recorded.', null); }
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, IntegrationEventsTable } from '../db/tables.js';
import type { Dialect } from '../db/dialect.js';
import type { Provider } from './intent.js';

export type IntegrationEventRow = Selectable<IntegrationEventsTable>;

/** Final outcomes of a delivery; `processing` while one is being handled. */
export const OUTCOMES = ['recorded', 'duplicate', 'skipped', 'ignored'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** A delivery claimed this long ago and never finished (its process died) may be claimed again. */
export const STALE_CLAIM_MS = 60_000;

export interface EventKey {
  workspaceId: string;
  provider: Provider;
  eventId: string;
}

export function createIntegrationStore(db: Kysely<Database>, dialect: Dialect) {
  const byKey = (k: EventKey) =>
    db.selectFrom('integration_events').selectAll().where('workspace_id', '=', k.workspaceId).where('provider', '=', k.provider).where('event_id', '=', k.eventId);
  return {
    async sealedSecret(workspaceId: string, provider: Provider): Promise<string | undefined> {
      const row = await db.selectFrom('integrations').select('secret_sealed').where('workspace_id', '=', workspaceId).where('provider', '=', provider).executeTakeFirst();
      return row?.secret_sealed;
    },
    async configured(workspaceId: string): Promise<{ provider: string; updated_at: number }[]> {
      return db.selectFrom('integrations').select(['provider', 'updated_at']).where('workspace_id', '=', workspaceId).execute();
    },
    /** Saves the sealed secret; `audit` writes the audit entry in the same transaction. */
    async saveSecret(workspaceId: string, provider: Provider, sealed: string, now: number, audit: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx
        .insertInto('integrations')
        .values({ workspace_id: workspaceId, provider, secret_sealed: sealed, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['workspace_id', 'provider']).doUpdateSet({ secret_sealed: sealed, updated_at: now }))
        .execute();
        await audit(trx);
      });
    },
    /** Removes the integration; false when there was none. */
    async removeSecret(workspaceId: string, provider: Provider, audit: (trx: Kysely<Database>) => Promise<void>): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const gone = await trx.deleteFrom('integrations').where('workspace_id', '=', workspaceId).where('provider', '=', provider).executeTakeFirst();
        if (!Number(gone.numDeletedRows)) return false;
        await audit(trx);
        return true;
      });
    },
    /**
     * Takes the delivery for this process: `claimed`, or the stored row of the same event id
     * (finished, or being handled elsewhere). The primary key decides between concurrent deliveries.
     */
    async claim(k: EventKey, type: string, now: number): Promise<'claimed' | IntegrationEventRow> {
      try {
        await db
          .insertInto('integration_events')
          .values({ workspace_id: k.workspaceId, provider: k.provider, event_id: k.eventId, type, outcome: 'processing', message: '', payload: null, received_at: now })
          .execute();
        return 'claimed';
      } catch (err) {
        if (!dialect.isUniqueViolation(err)) throw err;
      }
      const row = await byKey(k).executeTakeFirst();
      if (!row) return this.claim(k, type, now);
      // A claim left by a process that stopped mid-way, or a skipped event delivered again: take it over.
      const stale = row.outcome === 'processing' && row.received_at < now - STALE_CLAIM_MS;
      if (stale || row.outcome === 'skipped') {
        const taken = await db
          .updateTable('integration_events')
          .set({ outcome: 'processing', received_at: now })
          .where('workspace_id', '=', k.workspaceId).where('provider', '=', k.provider).where('event_id', '=', k.eventId)
          .where('outcome', '=', row.outcome).where('received_at', '=', row.received_at)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) === 1) return 'claimed';
        return (await byKey(k).executeTakeFirst()) ?? row;
      }
      return row;
    },
    async finish(k: EventKey, outcome: Outcome, message: string, payload: string | null): Promise<void> {
      await db
        .updateTable('integration_events')
        .set({ outcome, message: message.slice(0, 1000), payload })
        .where('workspace_id', '=', k.workspaceId).where('provider', '=', k.provider).where('event_id', '=', k.eventId)
        .execute();
    },
    /** Lets the provider's retry handle it again (the work failed for a reason that may pass). */
    async release(k: EventKey): Promise<void> {
      await db.deleteFrom('integration_events')
        .where('workspace_id', '=', k.workspaceId).where('provider', '=', k.provider).where('event_id', '=', k.eventId)
        .where('outcome', '=', 'processing')
        .execute();
    },
    find: (k: EventKey) => byKey(k).executeTakeFirst(),
    /** The workspace's latest deliveries, newest first. */
    recent(workspaceId: string, limit: number): Promise<IntegrationEventRow[]> {
      return db.selectFrom('integration_events').selectAll().where('workspace_id', '=', workspaceId).orderBy('received_at', 'desc').orderBy('event_id').limit(limit).execute();
    },
  };
}

export type IntegrationStore = ReturnType<typeof createIntegrationStore>;

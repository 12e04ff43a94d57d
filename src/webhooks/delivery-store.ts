/**
 * Storage of webhook deliveries (migration 0011): the fan-out's inserts, the dispatcher's claims
 * and outcomes, the per-webhook failure count, and the management API's reads (workspace first).
 *
 * A claim (per webhook, as fairness.ts plans it) moves `next_attempt_at` forward by a lease in one
 * transaction, so a delivery is sent by
 * one process at a time: PostgreSQL skips rows another process holds (`FOR UPDATE SKIP LOCKED`);
 * a SQLite file has one writing process and its transactions are serial. A process killed while
 * sending leaves the lease to expire, and the delivery is sent again (same event id).
 */
import { alertDue, writeFailureAlert } from './alerts.js';
import type { Insertable, Kysely } from 'kysely';
import type { Database, TransactionStep, WebhookAttemptsTable, WebhookDeliveriesTable } from '../db/tables.js';
import type { AttemptRow, DeliveryRow } from './schema.js';

/** Consecutive failed attempts after which a webhook is disabled (the published rule). */
export const DISABLE_AFTER_FAILURES = 20;

export interface Outcome {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The start of the receiver's answer (send.ts: `responseText`). */
  response?: string | null;
}

/** The history row of an attempt recorded at `now` (it was sent `latencyMs` before). */
function attemptRow(d: DeliveryRow, o: Outcome, now: number): WebhookAttemptsTable {
  return {
    delivery_id: d.id, attempt: Number(d.attempts), webhook_id: d.webhook_id, workspace_id: d.workspace_id,
    sent_at: now - Math.max(0, Math.round(o.latencyMs)), status_code: o.statusCode, latency_ms: Math.round(o.latencyMs),
    response: o.response ?? null, error: o.error,
  };
}

/** What became of one claimed delivery. */
export type Recorded =
  | { kind: 'success'; delivery: DeliveryRow; outcome: Outcome }
  | { kind: 'failure'; delivery: DeliveryRow; outcome: Outcome; retryAt: number | null }
  | { kind: 'release'; delivery: DeliveryRow };

/** `mailAlerts`: mail the owners of a failing webhook (SMTP_URL set; webhooks/alerts.ts). */
export function createDeliveryStore(db: Kysely<Database>, options: { skipLocked: boolean; mailAlerts?: boolean }) {
  return {
    /** Idempotent per (webhook, event): the outbox may hand the fan-out an event twice. One transaction. */
    /** `note`: the audit log's, called in the insert's transaction. */
    async insert(rows: readonly Insertable<WebhookDeliveriesTable>[], note: TransactionStep = async () => {}): Promise<void> {
      if (!rows.length) return;
      await db.transaction().execute(async (trx) => {
        // 13 columns a row: 200 rows stay far below SQLite's bound-value limit.
        for (let i = 0; i < rows.length; i += 200) {
          await trx.insertInto('webhook_deliveries').values(rows.slice(i, i + 200)).onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing()).execute();
        }
        await note(trx);
      });
    },

    /** How many deliveries are due per webhook (the dispatcher's view of who waits; fairness.ts). */
    async dueByWebhook(now: number): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['webhook_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('next_attempt_at', '<=', now)
        .groupBy('webhook_id')
        .execute();
      return new Map(rows.map((r) => [r.webhook_id, Number(r.n)]));
    },

    /**
     * Claims, per webhook of `plan`, up to that many of its due deliveries (oldest due first) if it
     * is enabled: each leased until now + leaseMs with its attempt counted. One transaction whose
     * statements all write (on SQLite a transaction that reads first and writes second fails at
     * once, SQLITE_BUSY_SNAPSHOT, when the click writer committed in between; a write waits for
     * the lock like any other).
     */
    async claim(now: number, leaseMs: number, plan: ReadonlyMap<string, number>): Promise<DeliveryRow[]> {
      if (!plan.size) return [];
      return db.transaction().execute(async (trx) => {
        const claimed: DeliveryRow[] = [];
        for (const [webhookId, n] of plan) {
          if (n <= 0) continue;
          const rows = await trx
            .updateTable('webhook_deliveries')
            .set((eb) => ({ attempts: eb(eb.ref('attempts'), '+', 1), next_attempt_at: now + leaseMs }))
            .where('id', 'in', (eb) => {
              const due = eb
                .selectFrom('webhook_deliveries as d')
                .select('d.id')
                .where('d.webhook_id', '=', webhookId)
                .where('d.next_attempt_at', '<=', now)
                .where((w) => w.exists(w.selectFrom('webhooks as w').select('w.id').where('w.id', '=', webhookId).where('w.disabled_at', 'is', null)))
                .orderBy('d.next_attempt_at')
                .limit(n);
              return options.skipLocked ? due.forUpdate().skipLocked() : due;
            })
            .where('next_attempt_at', '<=', now)
            .returningAll()
            .execute();
          claimed.push(...rows);
        }
        return claimed;
      });
    },

    /**
     * Writes the outcomes of several attempts in one transaction (one lock, one commit: the click
     * writer shares the SQLite file), in order. A success resets the webhook's failure count; a
     * failure is retried at `retryAt` (null: attempts exhausted) and counted against the webhook;
     * a release (shutdown) makes the delivery due at once without counting. Answers, per outcome,
     * whether it disabled its webhook.
     */
    async record(outcomes: readonly Recorded[], now: number): Promise<boolean[]> {
      return db.transaction().execute(async (trx) => {
        const disabled: boolean[] = [];
        for (const r of outcomes) {
          disabled.push(false);
          const d = r.delivery;
          if (r.kind === 'release') {
            await trx
              .updateTable('webhook_deliveries')
              .set((eb) => ({ next_attempt_at: now, attempts: eb(eb.ref('attempts'), '-', 1) }))
              .where('id', '=', d.id)
              .where('delivered_at', 'is', null)
              .execute();
            continue;
          }
          const o = r.outcome;
          // Every attempt is kept (a delivery row holds only the last); the same attempt number
          // twice is a recording replayed after a lost commit.
          await trx.insertInto('webhook_attempts').values(attemptRow(d, o, now)).onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing()).execute();
          if (r.kind === 'success') {
            await trx
              .updateTable('webhook_deliveries')
              .set({ delivered_at: now, next_attempt_at: null, status_code: o.statusCode, latency_ms: o.latencyMs, error: null })
              .where('id', '=', d.id)
              .execute();
            await trx.updateTable('webhooks').set({ consecutive_failures: 0 }).where('id', '=', d.webhook_id).where('consecutive_failures', '>', 0).execute();
            continue;
          }
          await trx
            .updateTable('webhook_deliveries')
            .set({ next_attempt_at: r.retryAt, status_code: o.statusCode, latency_ms: o.latencyMs, error: o.error })
            .where('id', '=', d.id)
            .execute();
          const w = await trx
            .updateTable('webhooks')
            .set((eb) => ({ consecutive_failures: eb(eb.ref('consecutive_failures'), '+', 1) }))
            .where('id', '=', d.webhook_id)
            .returning(['consecutive_failures', 'disabled_at'])
            .executeTakeFirst();
          if (!w || w.disabled_at !== null) continue;
          const failures = Number(w.consecutive_failures);
          const disables = failures >= DISABLE_AFTER_FAILURES;
          if (options.mailAlerts && alertDue(failures, disables)) await writeFailureAlert(trx, d.webhook_id, failures, disables, now);
          if (!disables) continue;
          await trx.updateTable('webhooks').set({ disabled_at: now }).where('id', '=', d.webhook_id).execute();
          disabled[disabled.length - 1] = true;
        }
        return disabled;
      });
    },

    /** Deletes settled deliveries (delivered or given up) created before `before`, attempts sent before it, and click batches no webhook still works through. */
    async prune(before: number): Promise<void> {
      await db.deleteFrom('webhook_attempts').where('sent_at', '<', before).execute();
      await db
        .deleteFrom('webhook_click_batches')
        .where('opened', '=', 1)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_click_cursors as c').select('c.batch_id').whereRef('c.batch_id', '=', 'webhook_click_batches.id'))))
        .execute();
      const any = await db.selectFrom('webhook_deliveries').select('id').where('next_attempt_at', 'is', null).where('created_at', '<', before).limit(1).executeTakeFirst();
      if (!any) return;
      await db.deleteFrom('webhook_deliveries').where('next_attempt_at', 'is', null).where('created_at', '<', before).execute();
    },

    async list(workspaceId: string, webhookId: string, limit: number): Promise<DeliveryRow[]> {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('webhook_id', '=', webhookId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    /** The attempts of these deliveries of the workspace's webhook, newest first. */
    async attempts(workspaceId: string, webhookId: string, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
      if (!deliveryIds.length) return [];
      return db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('webhook_id', '=', webhookId)
        .where('delivery_id', 'in', deliveryIds)
        .orderBy('sent_at', 'desc')
        .orderBy('attempt', 'desc')
        .execute();
    },

    async find(workspaceId: string, webhookId: string, id: string): Promise<DeliveryRow | undefined> {
      return db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('webhook_id', '=', webhookId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** Sends the delivery again now, delivered or not (same body, same event id); `note` as for `insert`. */
    async redeliver(workspaceId: string, id: string, now: number, note: TransactionStep = async () => {}): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('webhook_deliveries').set({ next_attempt_at: now, delivered_at: null }).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
        await note(trx);
      });
    },
  };
}
export type DeliveryStore = ReturnType<typeof createDeliveryStore>;

/**
 * The metrics read at scrape time (prom-client's `collect()`): each one copies a counter a module
 * keeps anyway (the redirect handler's, the click writer's, retention's) or asks the database once
 * per scrape (webhook deliveries, outbox backlog). Nothing here runs per redirect.
 *
 * @example
 * registerCollectors(registry, { redirect: () => redirect.stats(), retention: () => retention.stats(), db });
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { RedirectStats } from '../redirect/handler.js';
import type { ClickWriterStats } from '../redirect/click-writer.js';

export interface MetricSources {
  redirect: () => RedirectStats & { writer: ClickWriterStats; cachedLinks: number };
  retention: () => { deleted: { events: number; summaries: number; audit: number } };
  /** Clicks written at this start from earlier shutdowns' spill files. */
  replayed: () => number;
  db: Kysely<Database>;
  now: () => number;
}

/** A counter whose value is a number kept elsewhere, copied at scrape. */
function mirroredCounter(registry: Registry, name: string, help: string, read: () => number) {
  let copied = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      // A counter only goes up: `inc` by what was added since the last scrape.
      const value = read();
      if (value > copied) this.inc(value - copied);
      copied = Math.max(copied, value);
    },
  });
}

/** The same for one counter per label value. */
function mirroredLabelledCounter<K extends string>(registry: Registry, name: string, help: string, label: string, keys: readonly K[], read: () => Record<K, number>) {
  const copied = new Map<K, number>(keys.map((k) => [k, 0]));
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      const values = read();
      for (const key of keys) {
        const before = copied.get(key)!;
        // inc(0) too: every label value is listed from the first scrape.
        this.inc({ [label]: key }, Math.max(0, values[key] - before));
        copied.set(key, Math.max(before, values[key]));
      }
    },
  });
}

export function registerCollectors(registry: Registry, sources: MetricSources): void {
  mirroredLabelledCounter(
    registry,
    'waymark_redirects_total',
    'Short-link requests answered, by outcome: redirect (or rewrite frame) to a human visitor, not_found, expired, password page, bot (bots and HEAD), untracked (a domain placeholder)',
    'outcome',
    ['redirect', 'not_found', 'expired', 'password', 'bot', 'untracked'],
    () => {
      const s = sources.redirect();
      return { redirect: s.humanAnswers, not_found: s.notFound, expired: s.expired, password: s.passwordPages, bot: s.botAnswers, untracked: s.untracked };
    },
  );
  const writer = () => sources.redirect().writer;
  mirroredCounter(registry, 'waymark_clicks_recorded_total', 'New clicks handed to the click writer (repeats within the hour and bots are not clicks)', () => sources.redirect().clicksRecorded);
  mirroredCounter(registry, 'waymark_clicks_committed_total', 'Clicks committed to the database by the click writer', () => writer().flushed);
  mirroredCounter(registry, 'waymark_clicks_dropped_total', 'Clicks not recorded because CLICK_BUFFER_MAX clicks were waiting (the database failing or behind)', () => writer().dropped);
  mirroredCounter(registry, 'waymark_clicks_spilled_total', 'Clicks written to a spill file at shutdown (replayed at the next start)', () => writer().spilled);
  mirroredCounter(registry, 'waymark_clicks_lost_total', 'Clicks neither committed nor spilled at shutdown', () => writer().lost);
  mirroredCounter(registry, 'waymark_clicks_replayed_total', 'Clicks written at this start from spill files of earlier shutdowns', sources.replayed);
  mirroredCounter(registry, 'waymark_click_answers_held_total', 'Redirect answers held because the click writer was past CLICK_MAX_LAG_MS', () => writer().held);
  mirroredCounter(registry, 'waymark_click_writer_batches_total', 'Click batches committed (clicks_committed_total / this = mean batch size)', () => writer().flushes);
  mirroredCounter(registry, 'waymark_click_writer_failures_total', 'Click batch writes that failed (retried)', () => writer().failures);
  new Gauge({
    name: 'waymark_clicks_buffered',
    help: 'Clicks in memory, not committed yet',
    registers: [registry],
    collect() {
      this.set(writer().buffered);
    },
  });
  new Gauge({
    name: 'waymark_click_writer_lag_seconds',
    help: 'Age of the oldest click not committed yet (0 when none waits)',
    registers: [registry],
    collect() {
      this.set(writer().lagMs / 1000);
    },
  });
  new Gauge({
    name: 'waymark_link_cache_entries',
    help: 'Links held in the redirect cache',
    registers: [registry],
    collect() {
      this.set(sources.redirect().cachedLinks);
    },
  });
  mirroredLabelledCounter(
    registry,
    'waymark_retention_deleted_total',
    'Rows deleted by retention in this process, by kind (events; summaries: rollup rows; audit: audit log entries)',
    'kind',
    ['events', 'summaries', 'audit'],
    () => sources.retention().deleted,
  );

  // Read from the database at scrape: every process of a PostgreSQL deployment reports the same
  // figures (sum() in PromQL would count them once per process: use max()).
  new Gauge({
    name: 'waymark_webhook_deliveries',
    help: 'Webhook deliveries kept in the database, by state: pending (queued or waiting for a retry), delivered, failed (retries exhausted)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const rows = await sources.db
        .selectFrom('webhook_deliveries')
        .select([
          sql<string>`case when delivered_at is not null then 'delivered' when next_attempt_at is not null then 'pending' else 'failed' end`.as('state'),
          sql<number>`count(*)`.as('n'),
        ])
        .groupBy(sql`1`)
        .execute();
      this.reset();
      for (const state of ['pending', 'delivered', 'failed']) this.set({ state }, Number(rows.find((r) => r.state === state)?.n ?? 0));
    },
  });
  new Gauge({
    name: 'waymark_webhook_oldest_pending_seconds',
    help: 'Age of the oldest webhook delivery not delivered and not given up (0 when none)',
    registers: [registry],
    async collect() {
      const row = await sources.db
        .selectFrom('webhook_deliveries')
        .select(sql<number | null>`min(created_at)`.as('oldest'))
        .where('next_attempt_at', 'is not', null)
        .executeTakeFirst();
      this.set(row?.oldest == null ? 0 : Math.max(0, (sources.now() - Number(row.oldest)) / 1000));
    },
  });
  new Gauge({
    name: 'waymark_outbox_backlog',
    help: 'Domain events in the outbox not yet taken by every subscriber (EVENTS_FILE, webhooks)',
    registers: [registry],
    async collect() {
      const row = await sources.db.selectFrom('outbox').select(sql<number>`count(*)`.as('n')).executeTakeFirst();
      this.set(Number(row?.n ?? 0));
    },
  });
  new Gauge({
    name: 'waymark_outbox_oldest_seconds',
    help: 'Age of the oldest domain event in the outbox (0 when empty)',
    registers: [registry],
    async collect() {
      const row = await sources.db.selectFrom('outbox').select(sql<number | null>`min(created_at)`.as('oldest')).executeTakeFirst();
      this.set(row?.oldest == null ? 0 : Math.max(0, (sources.now() - Number(row.oldest)) / 1000));
    },
  });
}

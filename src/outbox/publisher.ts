/**
 * Delivers outbox events (outbox.ts) to the subscribers registered at start, after the commit of
 * the transaction that wrote them: at once when this process's writes call `nudge()`, and every
 * `pollMs` for events written by other processes (or by writers that do not nudge).
 *
 * Delivery is at least once per subscriber; subscribers de-duplicate by event id, so the effect is
 * exactly once. Per (subscriber, event) a row of `outbox_deliveries` (migration 0010) records the
 * claim, the attempts and the delivery:
 * - an event is claimed for a subscriber with a lease (`not_before` = now + leaseMs) by one
 *   conditional upsert, so two processes on one PostgreSQL never deliver it at the same time; a
 *   process that dies holding a claim leaves it to be retried once the lease expires;
 * - a failed delivery sets the event's next attempt (exponential backoff up to retryMaxMs) and
 *   pauses that subscriber alone for as long; the other subscribers go on;
 * - no cursor: PostgreSQL may commit a later-numbered row first, so every event without a
 *   delivery of its own is due, whatever its position.
 * Events every subscriber of their type has taken are pruned, and any event after retentionMs;
 * their delivery rows a lease later.
 *
 * @example
 * const publisher = createOutboxPublisher({ db, subscribers: [sink], expander: () => createEventExpander(db, settings) });
 * publisher.start(); … publisher.nudge(); … await publisher.close();
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, OutboxTable } from '../db/tables.js';
import { DOMAIN_EVENT_TYPES, INTERNAL_EVENT_TYPES, type OutboxType, type ClickSubscriptions, type DomainEvent, type DomainEventType, type EventRegistry } from './outbox.js';

export type OutboxRow = Selectable<OutboxTable>;

/**
 * Turns stored outbox rows into the events subscribers receive (the payloads are the app's:
 * webhooks/event-payloads.ts). One is made per delivery round, so it may keep what it read.
 */
export type EventExpander = (row: OutboxRow) => Promise<DomainEvent>;

export interface Subscriber {
  /** Stable across restarts: deliveries are recorded under it. */
  readonly name: string;
  readonly events: readonly OutboxType[];
  /** Resolves once the event is taken; throws to have it retried. Must ignore an event id it has seen. */
  deliver(event: DomainEvent): Promise<void>;
  /**
   * A subscriber whose interest changes at run time (webhooks): whether it wants `type` now.
   * Absent: every type of `events`, always.
   */
  wants?(type: DomainEventType): boolean;
  /**
   * Takes several events at once, all or none (throws to have them all retried); when present the
   * publisher claims, hands over and records a whole batch per round trip instead of one event
   * (webhooks: clicks come by the thousand, and each claim is a write on the click writer's file).
   */
  deliverBatch?(events: DomainEvent[]): Promise<void>;
  /**
   * With `wants`: whose clicks it wants now, and a way to hear when that changes; `routed`, called
   * after a click batch committed deliveries of its `routes` (ClickRoutes: the batch writes them
   * itself, without the outbox).
   */
  clicks?: { current(): ClickSubscriptions; watch(listener: () => void): void; routed?(): void };
}

/** The registry of subscribers: which event types are wanted at all. */
export function createEventRegistry(subscribers: readonly Subscriber[]): EventRegistry & { subscribers: readonly Subscriber[] } {
  const names = new Set<string>();
  for (const s of subscribers) {
    if (names.has(s.name)) throw new Error(`two event subscribers are named "${s.name}"`);
    names.add(s.name);
    for (const e of s.events) if (![...DOMAIN_EVENT_TYPES, ...INTERNAL_EVENT_TYPES].includes(e)) throw new Error(`subscriber "${s.name}": unknown event type "${e}"`);
  }
  const always = new Set(subscribers.filter((s) => !s.wants).flatMap((s) => s.events));
  const dynamic = subscribers.filter((s) => s.wants);
  const allClicks = always.has('link.clicked');
  return {
    subscribers,
    wants: (type) => always.has(type) || dynamic.some((s) => s.events.includes(type) && s.wants!(type as DomainEventType)),
    clickSubscriptions(): ClickSubscriptions {
      // Routed clicks bypass the outbox: a subscriber that routes clicks need not take link.clicked
      // events, and then wants no outbox rows of clicks.
      const parts = dynamic
        .filter((s) => s.clicks)
        .map((s) => {
          const c = s.clicks!.current();
          return s.events.includes('link.clicked') ? c : { all: false, workspaces: [], links: [], ...(c.routes ? { routes: c.routes } : {}) };
        });
      // One subscriber (webhooks) routes clicks at most.
      const routes = parts.find((p) => p.routes)?.routes;
      if (allClicks) return { all: true, workspaces: [], links: [], ...(routes ? { routes } : {}) };
      if (parts.length === 1) return parts[0]!;
      return { all: parts.some((p) => p.all), workspaces: parts.flatMap((p) => p.workspaces), links: parts.flatMap((p) => p.links), ...(routes ? { routes } : {}) };
    },
    watchClicks(listener) {
      for (const s of dynamic) s.clicks?.watch(listener);
    },
    clicksRouted() {
      for (const s of dynamic) s.clicks?.routed?.();
    },
  };
}

export interface PublisherOptions {
  db: Kysely<Database>;
  subscribers: readonly Subscriber[];
  /** A new expander per delivery round (webhooks/event-payloads.ts `createEventExpander`). */
  expander: () => EventExpander;
  /** Interval of the look for events this process was not nudged about; default 1000 ms. */
  pollMs?: number;
  now?: () => number;
  /** A failed delivery or database error; the publisher goes on. */
  onError?: (err: unknown, context: { subscriber?: string; eventId?: string }) => void;
  /** How long a claim keeps other processes off an event; default 60 s. */
  leaseMs?: number;
  /** Delay after a first failure, doubling per attempt up to retryMaxMs; defaults 1 s and 5 min. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Events older than this are pruned, delivered or not; default 7 days. */
  retentionMs?: number;
  /** Events read per query; default 100. */
  batchSize?: number;
}

export interface OutboxPublisher {
  start(): void;
  /** A transaction that wrote outbox rows committed: deliver now (coalesced with a round in flight). */
  nudge(): void;
  /** Stops polling and waits for the deliveries in flight. */
  close(): Promise<void>;
  /** Resolves when no round is running or requested (tests). */
  idle(): Promise<void>;
  /** Deletes events every subscriber of their type took, and those past the retention (also run every minute). */
  prune(): Promise<void>;
}

interface Lane {
  sub: Subscriber;
  running: Promise<void> | null;
  again: boolean;
  pausedUntil: number;
  retryTimer: NodeJS.Timeout | null;
}

const PRUNE_EVERY_MS = 60_000;

export function backoffMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

export function createOutboxPublisher(options: PublisherOptions): OutboxPublisher {
  const { db, expander } = options;
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? 1000;
  const leaseMs = options.leaseMs ?? 60_000;
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const retryMaxMs = options.retryMaxMs ?? 300_000;
  const retentionMs = options.retentionMs ?? 7 * 24 * 3600_000;
  const batchSize = options.batchSize ?? 100;
  const onError = options.onError ?? ((err, c) => console.error('waymark: event delivery failed', c, err));
  createEventRegistry(options.subscribers);
  const lanes: Lane[] = options.subscribers.map((sub) => ({ sub, running: null, again: false, pausedUntil: 0, retryTimer: null }));

  let started = false;
  let closed = false;
  let pollTimer: NodeJS.Timeout | null = null;
  let pruning: Promise<void> | null = null;
  let lastPrune = 0;

  /** Events of the subscriber's types it has neither taken nor has waiting (claimed or backing off). */
  function due(sub: Subscriber, t: number): Promise<OutboxRow[]> {
    return db
      .selectFrom('outbox as o')
      .selectAll('o')
      .where('o.type', 'in', [...sub.events])
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('outbox_deliveries as d')
              .select('d.event_id')
              .where('d.subscriber', '=', sub.name)
              .whereRef('d.event_id', '=', 'o.id')
              .where((w) => w.or([w('d.delivered_at', 'is not', null), w('d.not_before', '>', t)])),
          ),
        ),
      )
      .orderBy('o.created_at')
      .orderBy('o.id')
      .limit(batchSize)
      .execute();
  }

  /** Claims the event for the subscriber until t + leaseMs; the attempt number, or undefined when taken or claimed elsewhere. */
  async function claim(sub: Subscriber, eventId: string, t: number): Promise<number | undefined> {
    const r = await db
      .insertInto('outbox_deliveries')
      .values({ subscriber: sub.name, event_id: eventId, attempts: 1, not_before: t + leaseMs, delivered_at: null, last_error: null })
      .onConflict((oc) =>
        oc
          .columns(['subscriber', 'event_id'])
          .doUpdateSet((eb) => ({ attempts: eb(eb.ref('outbox_deliveries.attempts'), '+', 1), not_before: t + leaseMs }))
          .where('outbox_deliveries.delivered_at', 'is', null)
          .where('outbox_deliveries.not_before', '<=', t),
      )
      .returning('attempts')
      .executeTakeFirst();
    return r ? Number(r.attempts) : undefined;
  }

  /** `claim` for many events in one statement: the claimed ones with their attempt numbers. */
  async function claimMany(sub: Subscriber, eventIds: readonly string[], t: number): Promise<Map<string, number>> {
    const r = await db
      .insertInto('outbox_deliveries')
      .values(eventIds.map((id) => ({ subscriber: sub.name, event_id: id, attempts: 1, not_before: t + leaseMs, delivered_at: null, last_error: null })))
      .onConflict((oc) =>
        oc
          .columns(['subscriber', 'event_id'])
          .doUpdateSet((eb) => ({ attempts: eb(eb.ref('outbox_deliveries.attempts'), '+', 1), not_before: t + leaseMs }))
          .where('outbox_deliveries.delivered_at', 'is', null)
          .where('outbox_deliveries.not_before', '<=', t),
      )
      .returning(['event_id', 'attempts'])
      .execute();
    return new Map(r.map((x) => [x.event_id, Number(x.attempts)]));
  }

  async function settle(sub: Subscriber, eventIds: string | readonly string[], set: { delivered_at: number; last_error: null } | { not_before: number; last_error: string }) {
    const ids = typeof eventIds === 'string' ? [eventIds] : [...eventIds];
    if (!ids.length) return;
    await db.updateTable('outbox_deliveries').set(set).where('subscriber', '=', sub.name).where('event_id', 'in', ids).execute();
  }

  /** `run` for a subscriber that takes batches: each page of due events is claimed, delivered and recorded at once. */
  async function runBatches(lane: Lane, rows: OutboxRow[], expand: EventExpander): Promise<boolean> {
    const { sub } = lane;
    let claimed = new Map<string, number>();
    try {
      claimed = await claimMany(sub, rows.map((r) => r.id), now());
      const taken = rows.filter((r) => claimed.has(r.id));
      const events: DomainEvent[] = [];
      for (const row of taken) events.push(await expand(row));
      if (events.length) await sub.deliverBatch!(events);
    } catch (err) {
      onError(err, { subscriber: sub.name });
      const until = now() + backoffMs(Math.max(1, ...claimed.values()), retryBaseMs, retryMaxMs);
      await settle(sub, [...claimed.keys()], { not_before: until, last_error: String((err as Error)?.message ?? err).slice(0, 500) }).catch((e) => onError(e, { subscriber: sub.name }));
      pause(lane, until);
      return false;
    }
    try {
      await settle(sub, [...claimed.keys()], { delivered_at: now(), last_error: null });
    } catch (err) {
      // Delivered but not recorded: delivered again once the leases expire (the subscriber de-duplicates).
      onError(err, { subscriber: sub.name });
      pause(lane, now() + retryBaseMs);
      return false;
    }
    return true;
  }

  function pause(lane: Lane, untilMs: number): void {
    lane.pausedUntil = untilMs;
    if (lane.retryTimer) clearTimeout(lane.retryTimer);
    // Timers may fire a millisecond before the clock reaches their time: a margin, so the event's
    // own `not_before` has passed too and it is retried first, in order.
    lane.retryTimer = setTimeout(() => {
      lane.retryTimer = null;
      lane.pausedUntil = 0;
      kick(lane);
    }, Math.max(0, untilMs - now()) + 2);
    lane.retryTimer.unref();
  }

  /** Delivers what is due to one subscriber, in order, until none is left or a delivery fails. */
  async function run(lane: Lane): Promise<void> {
    const { sub } = lane;
    const expand = expander();
    for (;;) {
      let rows: OutboxRow[];
      try {
        rows = await due(sub, now());
      } catch (err) {
        onError(err, { subscriber: sub.name });
        pause(lane, now() + retryBaseMs);
        return;
      }
      if (sub.deliverBatch) {
        if (closed || (rows.length && !(await runBatches(lane, rows, expand)))) return;
        if (rows.length < batchSize) return;
        continue;
      }
      for (const row of rows) {
        if (closed) return;
        let attempts: number | undefined;
        try {
          attempts = await claim(sub, row.id, now());
          if (attempts === undefined) continue;
          // The mail subscriber alone takes `mail.send` (src/mail/module.ts reads it as such).
          await sub.deliver(row.type === 'mail.send' ? (mailEventOf(row) as unknown as DomainEvent) : await expand(row));
        } catch (err) {
          onError(err, { subscriber: sub.name, eventId: row.id });
          const until = now() + backoffMs(attempts ?? 1, retryBaseMs, retryMaxMs);
          if (attempts !== undefined) {
            await settle(sub, row.id, { not_before: until, last_error: String((err as Error)?.message ?? err).slice(0, 500) }).catch((e) =>
              onError(e, { subscriber: sub.name, eventId: row.id }),
            );
          }
          pause(lane, until);
          return;
        }
        try {
          await settle(sub, row.id, { delivered_at: now(), last_error: null });
        } catch (err) {
          // Delivered but not recorded: delivered again once the lease expires (the subscriber de-duplicates).
          onError(err, { subscriber: sub.name, eventId: row.id });
          pause(lane, now() + retryBaseMs);
          return;
        }
      }
      if (rows.length < batchSize) return;
    }
  }

  function kick(lane: Lane): void {
    if (!started || closed) return;
    if (lane.running) {
      lane.again = true;
      return;
    }
    if (now() < lane.pausedUntil) return;
    lane.running = run(lane).finally(() => {
      lane.running = null;
      if (lane.again) {
        lane.again = false;
        kick(lane);
      }
    });
  }

  async function prune(): Promise<void> {
    const t = now();
    const types = new Set(options.subscribers.flatMap((s) => s.events));
    for (const type of types) {
      const names = options.subscribers.filter((s) => s.events.includes(type)).map((s) => s.name);
      await db
        .deleteFrom('outbox')
        .where('type', '=', type)
        .where(
          (eb) =>
            eb
              .selectFrom('outbox_deliveries as d')
              .select((s) => s.fn.countAll<number>().as('n'))
              .whereRef('d.event_id', '=', 'outbox.id')
              .where('d.subscriber', 'in', names)
              .where('d.delivered_at', 'is not', null),
          '>=',
          names.length,
        )
        .execute();
    }
    await db.deleteFrom('outbox').where('created_at', '<', t - retentionMs).execute();
    // The deliveries of pruned events go a lease later: a process that read the event before it was
    // pruned finds its delivery taken when it tries to claim it, instead of delivering it again.
    await db
      .deleteFrom('outbox_deliveries')
      .where('not_before', '<', t - leaseMs)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('outbox').select('outbox.id').whereRef('outbox.id', '=', 'outbox_deliveries.event_id'))))
      .execute();
  }

  function tick(): void {
    for (const lane of lanes) kick(lane);
    if (!pruning && now() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = now();
      pruning = prune()
        .catch((err) => onError(err, {}))
        .finally(() => (pruning = null));
    }
  }

  async function idle(): Promise<void> {
    while (lanes.some((l) => l.running) || pruning) await Promise.all([...lanes.map((l) => l.running), pruning]);
  }

  return {
    start() {
      if (started || closed || !lanes.length) return;
      started = true;
      pollTimer = setInterval(tick, pollMs);
      pollTimer.unref();
      tick();
    },
    nudge() {
      for (const lane of lanes) kick(lane);
    },
    async close() {
      closed = true;
      if (pollTimer) clearInterval(pollTimer);
      for (const lane of lanes) if (lane.retryTimer) clearTimeout(lane.retryTimer);
      await idle();
    },
    idle,
    prune,
  };
}

/** A `mail.send` row as its subscriber receives it (src/mail/): the intent as written, no expansion. */
function mailEventOf(row: OutboxRow): DomainEvent<'mail.send'> {
  return { id: row.id, event: 'mail.send', createdAt: new Date(Number(row.created_at)).toISOString(), workspaceId: row.workspace_id, data: JSON.parse(row.payload) as unknown };
}

/**
 * The outbox and its publisher on a bare database: nothing of a rolled-back transaction is
 * delivered, a committed event goes once to each subscriber, a failing subscriber is retried
 * without holding up another, two publishers on one database (two processes) deliver each event
 * once, and delivered events are pruned; a subscriber that takes batches gets pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { openTestDatabase } from '../test-support/harness.js';
import type { StoredEvent } from '../events/index.js';
import { clickOutboxEntries, conversionOutboxEntry, createOutbox, outboxEntry, writeOutbox, type DomainEvent, type DomainEventType } from './outbox.js';
import { backoffMs, createEventRegistry, createOutboxPublisher, type OutboxPublisher, type Subscriber } from './publisher.js';
import { createFileSink } from './file-sink.js';
import { createEventExpander } from '../webhooks/event-payloads.js';
import type { LinkResponse } from '../links/response.js';

const settings = { baseUrl: 'http://localhost:3999', shortLinkProtocol: 'http' as const };

/** A subscriber that records what it gets, failing its first `failures` deliveries. */
function recorder(name: string, events: readonly DomainEventType[], failures = 0): Subscriber & { got: DomainEvent[]; attempts: number } {
  const s = {
    name,
    events,
    got: [] as DomainEvent[],
    attempts: 0,
    async deliver(event: DomainEvent) {
      s.attempts++;
      if (s.attempts <= failures) throw new Error(`${name} is down`);
      if (!s.got.some((e) => e.id === event.id)) s.got.push(event);
    },
  };
  return s;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Runs `body` on a fresh database; the publishers it passes through `track` are closed after it. */
async function onFreshDatabase(body: (db: Kysely<Database>, track: (p: OutboxPublisher) => OutboxPublisher) => Promise<void>): Promise<void> {
  const opened = await openTestDatabase();
  const publishers: OutboxPublisher[] = [];
  try {
    await body(opened.database.db, (p) => (publishers.push(p), p));
  } finally {
    for (const p of publishers) await p.close();
    await opened.database.close();
    await opened.dispose();
  }
}

const linkData = (id: string) => ({ id, url: 'https://example.com' }) as unknown as LinkResponse;

function clickRow(id: string, linkId = 'link_1'): StoredEvent {
  return {
    workspace_id: 'ws_1', timestamp: 1_700_000_000_000, id, kind: 'click', click_id: id, link_id: linkId, domain: 'go.test', key: 'k',
    url: 'https://example.com/', country: 'DE', city: 'Berlin', region: 'DE-BE', continent: 'EU', device: 'Desktop', browser: 'Chrome',
    os: 'Linux', referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: '10.0.0.1', ua: 'UA', amount: 0,
  };
}

test('clickOutboxEntries: one link.clicked entry per stored click, the click row kept for delivery', () => {
  const lead = { ...clickRow('c2'), kind: 'lead', id: 'evt_lead' } as StoredEvent;
  const entries = clickOutboxEntries([clickRow('c1'), lead, clickRow('c3')], 1234);
  assert.equal(entries.length, 2);
  for (const [i, e] of entries.entries()) {
    assert.equal(e.type, 'link.clicked');
    assert.equal(e.workspace_id, 'ws_1');
    assert.equal(e.created_at, 1234);
    assert.match(e.id, /^evt_[0-9A-Z]{26}$/);
    assert.deepEqual(JSON.parse(e.payload), { event: clickRow(i === 0 ? 'c1' : 'c3') });
  }
  assert.notEqual(entries[0]!.id, entries[1]!.id);
  assert.deepEqual(clickOutboxEntries([], 1), []);
  assert.equal(conversionOutboxEntry(lead, 1).type, 'lead.created');
  assert.throws(() => conversionOutboxEntry(clickRow('c1'), 1));
});

test('registry: wants only the subscribed types; the outbox writes nothing for the others', () =>
  onFreshDatabase(async (db, track) => {
    const registry = createEventRegistry([recorder('a', ['link.created']), recorder('b', ['lead.created', 'link.created'])]);
    assert.equal(registry.wants('link.created'), true);
    assert.equal(registry.wants('lead.created'), true);
    assert.equal(registry.wants('link.clicked'), false);
    assert.throws(() => createEventRegistry([recorder('a', []), recorder('a', [])]), /two event subscribers/);
    const outbox = createOutbox(registry);
    await db.transaction().execute(async (trx) => {
      await outbox.write(trx, [...clickOutboxEntries([clickRow('c1')], 1), outboxEntry('link.created', 'ws_1', linkData('link_1'), 1)]);
    });
    const rows = await db.selectFrom('outbox').select('type').execute();
    assert.deepEqual(rows.map((r) => r.type), ['link.created']);
  }));

test('a rolled-back transaction delivers nothing; a committed one goes once to each subscriber', () =>
  onFreshDatabase(async (db, track) => {
    const a = recorder('a', ['link.created']);
    const b = recorder('b', ['link.created', 'link.deleted']);
    const publisher = track(createOutboxPublisher({ db, subscribers: [a, b], expander: () => createEventExpander(db, settings), pollMs: 20, onError: () => {} }));
    publisher.start();
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await writeOutbox(trx, [outboxEntry('link.created', 'ws_1', linkData('link_rolled_back'), Date.now())]);
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    const committed = outboxEntry('link.created', 'ws_1', linkData('link_kept'), Date.now());
    await db.transaction().execute((trx) => writeOutbox(trx, [committed]));
    publisher.nudge();
    await until(() => a.got.length === 1 && b.got.length === 1, 'both subscribers got the event');
    // Further rounds (polls, nudges) deliver nothing again.
    publisher.nudge();
    await new Promise((r) => setTimeout(r, 60));
    await publisher.idle();
    for (const s of [a, b]) {
      assert.equal(s.attempts, 1, s.name);
      assert.deepEqual(s.got.map((e) => [e.id, e.event, (e.data as LinkResponse).id, e.workspaceId]), [[committed.id, 'link.created', 'link_kept', 'ws_1']]);
    }
    assert.equal(new Date(a.got[0]!.createdAt).getTime(), committed.created_at);
    const deliveries = await db.selectFrom('outbox_deliveries').selectAll().orderBy('subscriber').execute();
    assert.deepEqual(deliveries.map((d) => [d.subscriber, d.event_id, d.attempts, d.delivered_at !== null]), [['a', committed.id, 1, true], ['b', committed.id, 1, true]]);
  }));

test('a failing subscriber is retried with backoff and holds up no other subscriber', () =>
  onFreshDatabase(async (db, track) => {
    const failing = recorder('failing', ['lead.created'], 3);
    const healthy = recorder('healthy', ['lead.created']);
    const errors: { subscriber?: string; eventId?: string }[] = [];
    const publisher = track(
      createOutboxPublisher({
        db,
        subscribers: [failing, healthy],
        expander: () => createEventExpander(db, settings),
        pollMs: 10_000,
        retryBaseMs: 20,
        onError: (_err, c) => errors.push(c),
      }),
    );
    publisher.start();
    const leads = [1, 2, 3].map((i) => conversionOutboxEntry({ ...clickRow(`c${i}`), id: `evt_lead${i}`, kind: 'lead', event_name: 'Sign up' }, Date.now() + i));
    await db.transaction().execute((trx) => writeOutbox(trx, leads));
    publisher.nudge();
    await until(() => healthy.got.length === 3, 'the healthy subscriber got all three');
    await until(() => failing.got.length === 3, 'the failing subscriber got all three after its retries');
    assert.deepEqual(failing.got.map((e) => e.id), leads.map((e) => e.id), 'in order');
    assert.deepEqual(healthy.got.map((e) => e.id), leads.map((e) => e.id));
    assert.equal(failing.attempts, 3 + 3, 'three failures (the first event each time), then one delivery each');
    assert.deepEqual(errors.map((e) => e.subscriber), ['failing', 'failing', 'failing']);
    assert.ok(errors.every((e) => e.eventId === leads[0]!.id));
    const row = await db.selectFrom('outbox_deliveries').selectAll().where('subscriber', '=', 'failing').where('event_id', '=', leads[0]!.id).executeTakeFirstOrThrow();
    assert.equal(row.attempts, 4);
    assert.equal(row.last_error, null);
    assert.deepEqual([1, 2, 3, 20].map((n) => backoffMs(n, 1000, 300_000)), [1000, 2000, 4000, 300_000]);
  }));

test('two publishers on one database (two processes) deliver each event once; pruning removes what every subscriber took', () =>
  onFreshDatabase(async (db, track) => {
    const seen: string[] = [];
    const shared = (): Subscriber => ({
      name: 'shared',
      events: ['link.created'],
      async deliver(e) {
        seen.push(e.id);
        await new Promise((r) => setTimeout(r, 1));
      },
    });
    const p1 = track(createOutboxPublisher({ db, subscribers: [shared()], expander: () => createEventExpander(db, settings), pollMs: 10, batchSize: 7 }));
    const p2 = track(createOutboxPublisher({ db, subscribers: [shared()], expander: () => createEventExpander(db, settings), pollMs: 10, batchSize: 7 }));
    const entries = Array.from({ length: 40 }, (_, i) => outboxEntry('link.created', 'ws_1', linkData(`link_${i}`), Date.now() + i));
    await db.transaction().execute((trx) => writeOutbox(trx, entries));
    p1.start();
    p2.start();
    await until(() => seen.length >= 40, 'all delivered');
    await p1.idle();
    await p2.idle();
    assert.equal(seen.length, 40, 'no event delivered twice');
    assert.deepEqual(new Set(seen), new Set(entries.map((e) => e.id)));
    await p1.prune();
    assert.equal((await db.selectFrom('outbox').select('id').execute()).length, 0);
    // Their delivery rows stay for a lease more (a process that read an event before it was
    // pruned must find it taken), then go.
    assert.equal((await db.selectFrom('outbox_deliveries').select('event_id').execute()).length, 40);
    const later = Date.now() + 2 * 60_000 + 1000;
    await track(createOutboxPublisher({ db, subscribers: [shared()], expander: () => createEventExpander(db, settings), now: () => later })).prune();
    assert.equal((await db.selectFrom('outbox_deliveries').select('event_id').execute()).length, 0);
  }));

test('an expired claim (a process died holding it) is delivered again; an unexpired one is left alone', () =>
  onFreshDatabase(async (db, track) => {
    let clock = 1_000_000;
    const s = recorder('s', ['link.created']);
    const publisher = track(createOutboxPublisher({ db, subscribers: [s], expander: () => createEventExpander(db, settings), pollMs: 10_000, leaseMs: 5000, now: () => clock }));
    const e = outboxEntry('link.created', 'ws_1', linkData('link_1'), clock);
    await db.transaction().execute((trx) => writeOutbox(trx, [e]));
    await db.insertInto('outbox_deliveries').values({ subscriber: 's', event_id: e.id, attempts: 1, not_before: clock + 5000, delivered_at: null, last_error: null }).execute();
    publisher.start();
    await publisher.idle();
    assert.equal(s.attempts, 0, 'claimed by the other process');
    clock += 5000;
    publisher.nudge();
    await publisher.idle();
    assert.deepEqual(s.got.map((g) => g.id), [e.id]);
    const row = await db.selectFrom('outbox_deliveries').selectAll().executeTakeFirstOrThrow();
    assert.deepEqual([row.attempts, row.delivered_at], [2, clock]);
  }));

test('file sink: one JSON line per event, an id already in the file is not written again (a new process)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-sink-'));
  try {
    const path = join(dir, 'events.ndjson');
    const event: DomainEvent = { id: 'evt_1', event: 'link.deleted', createdAt: new Date(0).toISOString(), workspaceId: 'ws_1', data: linkData('link_1') };
    const first = createFileSink({ path });
    await first.deliver(event);
    await first.deliver(event);
    const second = createFileSink({ path });
    await second.deliver(event);
    await second.deliver({ ...event, id: 'evt_2' });
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.id), ['evt_1', 'evt_2']);
    assert.deepEqual(lines[0], { id: 'evt_1', event: 'link.deleted', createdAt: '1970-01-01T00:00:00.000Z', workspaceId: 'ws_1', data: linkData('link_1') });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a subscriber taking batches gets pages of events at once, all retried after a failure, each recorded delivered', async () => {
  await onFreshDatabase(async (db, track) => {
    const batches: DomainEvent[][] = [];
    let failures = 1;
    const sub: Subscriber = {
      name: 'batches',
      events: ['link.created'],
      deliver: async () => assert.fail('deliver is not used when deliverBatch is given'),
      async deliverBatch(events) {
        if (failures-- > 0) throw new Error('down once');
        batches.push(events);
      },
    };
    const entries = Array.from({ length: 250 }, (_, i) => outboxEntry('link.created', 'ws_1', linkData(`link_${i}`), Date.now() + i));
    await db.transaction().execute((trx) => writeOutbox(trx, entries));
    const publisher = track(createOutboxPublisher({ db, subscribers: [sub], expander: () => createEventExpander(db, settings), pollMs: 10, retryBaseMs: 20, onError: () => {} }));
    publisher.start();
    await until(() => batches.flat().length >= 250, 'every event');
    assert.deepEqual(batches.map((b) => b.length), [100, 100, 50]);
    assert.deepEqual(batches.flat().map((e) => e.id), entries.map((e) => e.id));
    await publisher.idle();
    const rows = await db.selectFrom('outbox_deliveries').select(['attempts', 'delivered_at']).where('subscriber', '=', 'batches').execute();
    assert.equal(rows.length, 250);
    assert.ok(rows.every((r) => r.delivered_at !== null));
    assert.equal(rows.filter((r) => Number(r.attempts) === 2).length, 100, 'the failed page was claimed again');
  });
});

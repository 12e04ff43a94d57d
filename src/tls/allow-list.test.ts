import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTlsAllowList } from './allow-list.js';

/** A domain table the loaders read, each answer after `delayMs` of its own. */
function fakeDomains(initial: string[]) {
  const rows = new Set(initial);
  const errors: string[] = [];
  let delays: number[] = [];
  const wait = () => new Promise((r) => setTimeout(r, delays.shift() ?? 0));
  let failNext = false;
  return {
    rows,
    errors,
    setDelays: (d: number[]) => (delays = d),
    failNext: () => (failNext = true),
    options: {
      fixed: ['api.waymark.test'],
      loadAll: async () => {
        await wait();
        if (failNext) {
          failNext = false;
          throw new Error('database down');
        }
        return [...rows];
      },
      // Reads the table when it runs, as the SQL query does.
      loadOne: async (slug: string) => {
        const present = rows.has(slug);
        await wait();
        return present;
      },
      onError: (_err: unknown, context: string) => void errors.push(context),
    },
  };
}

test('allows the fixed names and the loaded domains, nothing else, and follows each change', async () => {
  const db = fakeDomains(['go.acme.test']);
  const list = createTlsAllowList(db.options);
  assert.equal(list.allows('go.acme.test'), false, 'nothing is loaded before start');
  await list.start();
  try {
    assert.equal(list.allows('api.waymark.test'), true);
    assert.equal(list.allows('go.acme.test'), true);
    assert.equal(list.allows('other.acme.test'), false);

    db.rows.add('new.acme.test');
    await list.changed('new.acme.test');
    assert.equal(list.allows('new.acme.test'), true);
    db.rows.delete('go.acme.test');
    await list.changed('go.acme.test');
    assert.equal(list.allows('go.acme.test'), false);
  } finally {
    list.close();
  }
});

test('reloads run in the order they were asked for: a slow first answer cannot undo a later deletion', async () => {
  const db = fakeDomains([]);
  const list = createTlsAllowList(db.options);
  await list.start();
  try {
    db.rows.add('race.acme.test');
    // The first reload would take 50 ms, the second 0: run together, the first would land last.
    db.setDelays([50, 0]);
    const added = list.changed('race.acme.test');
    db.rows.delete('race.acme.test');
    const deleted = list.changed('race.acme.test');
    await Promise.all([added, deleted]);
    assert.equal(list.allows('race.acme.test'), false);
  } finally {
    list.close();
  }
});

test('the periodic reload finds what no change announced; a failed reload keeps the last set', async () => {
  const db = fakeDomains(['go.acme.test']);
  const list = createTlsAllowList({ ...db.options, refreshMs: 20 });
  await list.start();
  try {
    // Verified by another process that has no way to announce it (SQLite, `waymark domains verify`).
    db.rows.add('silent.acme.test');
    const deadline = Date.now() + 10_000;
    while (!list.allows('silent.acme.test') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(list.allows('silent.acme.test'), true);

    db.failNext();
    const errorsBefore = db.errors.length;
    while (db.errors.length === errorsBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.match(db.errors.at(-1)!, /not reloaded/);
    assert.equal(list.allows('go.acme.test'), true, 'still allowed after a failed reload');
  } finally {
    list.close();
  }
});

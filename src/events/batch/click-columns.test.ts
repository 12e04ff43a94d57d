import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkColumns, clickIdAt, type ClickColumns } from './click-columns.js';
import { columnsOf, linkCounts, rowsOf } from './wide-rows.js';
import { foldClicks } from './fold-clicks.js';
import { contractEvent } from '../contract.js';

const T = 1_741_564_800_000;
const rows = [
  contractEvent('ws_1', 'lnk_a', { timestamp: T + 1 }),
  contractEvent('ws_1', 'lnk_b', { timestamp: T + 2, trigger: 'qr', ip: '198.51.100.0' }),
  contractEvent('ws_1', 'lnk_a', { timestamp: T + 9, utm_source: null }),
  contractEvent('ws_2', 'lnk_c', { timestamp: T + 4, ua: 'curl/8', device: 'Desktop', referer: 'google.com', referer_url: 'https://google.com/' }),
];

test('columns ↔ wide rows: every field round-trips, each distinct value is held once', () => {
  const c = columnsOf(rows);
  checkColumns(c);
  assert.deepEqual(rowsOf(c), rows);
  assert.equal(c.dictionaries.links.length, 3);
  assert.equal(c.dictionaries.agents.length, 2);
  assert.deepEqual([...c.link], [0, 1, 0, 2]);
  assert.equal(clickIdAt(c, 3), rows[3]!.id);
  assert.deepEqual(rowsOf(columnsOf([])), []);
  assert.throws(() => columnsOf([{ ...rows[0]!, kind: 'lead' }]), /lead/);
});

test('checkColumns refuses arrays of the wrong length and indices past their dictionary', () => {
  const c = columnsOf(rows);
  assert.throws(() => checkColumns({ ...c, length: 5 }), /malformed/);
  assert.throws(() => checkColumns({ ...c, agent: Uint32Array.of(0, 0, 0, 7) }), /agent names no value/);
  assert.throws(() => checkColumns({ ...c, place: [0, 0, 0, 0] as unknown as Uint32Array }), /malformed/);
  assert.throws(() => checkColumns({ ...c, ids: undefined } as ClickColumns), /ids/);
  assert.throws(() => checkColumns({ ...c, dictionaries: undefined } as unknown as ClickColumns), /malformed/);
});

test('per-link counts from the columns, as linkBumps counts rows', () => {
  const { links, workspaces } = linkCounts(columnsOf(rows));
  assert.deepEqual(Object.fromEntries(links), { lnk_a: { clicks: 2, lastClicked: T + 9 }, lnk_b: { clicks: 1, lastClicked: T + 2 }, lnk_c: { clicks: 1, lastClicked: T + 4 } });
  assert.deepEqual(Object.fromEntries(workspaces), { ws_1: 3, ws_2: 1 });
});

test('fold clicks: counts over batches; rows only of wanted links, the same objects on each ask', () => {
  const clicks = foldClicks([columnsOf(rows), columnsOf(rows.slice(0, 2))]);
  assert.equal(clicks.length, 6);
  assert.deepEqual(clicks.linkBumps().find((l) => l.id === 'lnk_a'), { id: 'lnk_a', clicks: 3, lastClicked: T + 9 });
  assert.deepEqual(clicks.workspaceBumps(), [{ id: 'ws_1', clicks: 5 }, { id: 'ws_2', clicks: 1 }]);
  const wanted = (l: { link_id: string }) => l.link_id === 'lnk_a';
  const a = clicks.rowsWhere(wanted);
  assert.deepEqual(a.map((r) => r.id), [rows[0]!.id, rows[2]!.id, rows[0]!.id]);
  assert.equal(clicks.rowsWhere(wanted)[1], a[1], 'one object per click for every listener');
  assert.ok(clicks.some((l) => l.workspace_id === 'ws_2'));
  assert.ok(!clicks.some((l) => l.workspace_id === 'ws_3'));
  assert.deepEqual(clicks.rowsWhere(() => false), []);
});

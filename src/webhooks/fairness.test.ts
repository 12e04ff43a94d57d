/**
 * The dispatcher's fair decisions, without a server: slots go round-robin over workspaces, then
 * receivers, then webhooks, never past a receiver's spare capacity; a receiver that timed out is
 * backed off (no spare at all), longer with each consecutive timeout, and an answer ends it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createReceiverGate, planClaims, receiverOf, type Candidate } from './fairness.js';

const c = (webhookId: string, workspaceId: string, receiver: string, available: number): Candidate => ({ webhookId, workspaceId, receiver, available });

test('a workspace with a thousand due deliveries gets one slot per turn, like a workspace with one', () => {
  const candidates = [
    ...Array.from({ length: 10 }, (_, i) => c(`wh_a${i}`, 'ws_a', 'http://slow.test', 1000)),
    c('wh_b', 'ws_b', 'https://fast.test', 1),
  ];
  for (let turn = 0; turn < 4; turn++) {
    const plan = planClaims(candidates, { slots: 4, spare: () => 100, turn });
    assert.equal(plan.get('wh_b'), 1, `turn ${turn}: B gets its delivery`);
    assert.equal([...plan.values()].reduce((a, b) => a + b, 0), 4);
  }
  // One slot: the turn decides who goes first, and B's turn comes.
  const firsts = [0, 1].map((turn) => [...planClaims(candidates, { slots: 1, spare: () => 100, turn }).keys()][0]);
  assert.ok(firsts.includes('wh_b'), JSON.stringify(firsts));
});

test('a receiver never gets more than its spare capacity; the other receivers share the rest', () => {
  const candidates = [c('wh_1', 'ws_a', 'http://slow.test', 50), c('wh_2', 'ws_a', 'http://slow.test', 50), c('wh_3', 'ws_a', 'http://other.test', 50), c('wh_4', 'ws_b', 'http://b.test', 2)];
  const spare = (r: string) => (r === 'http://slow.test' ? 3 : 100);
  const plan = planClaims(candidates, { slots: 20, spare, turn: 0 });
  assert.equal((plan.get('wh_1') ?? 0) + (plan.get('wh_2') ?? 0), 3, 'the slow receiver: 3, its cap');
  assert.ok(Math.abs((plan.get('wh_1') ?? 0) - (plan.get('wh_2') ?? 0)) <= 1, 'its webhooks take turns');
  assert.equal(plan.get('wh_4'), 2, 'B: all it has');
  assert.equal(plan.get('wh_3'), 15, 'the rest');
  // A backed-off receiver (no spare) gets nothing; nothing is planned beyond what webhooks have.
  const off = planClaims(candidates, { slots: 20, spare: (r) => (r === 'http://slow.test' ? 0 : 100), turn: 3 });
  assert.equal(off.has('wh_1') || off.has('wh_2'), false);
  assert.deepEqual(planClaims([], { slots: 5, spare: () => 5, turn: 0 }), new Map());
});

test('receivers are origins: one host, port and scheme', () => {
  assert.equal(receiverOf('https://hooks.example.com/a?x=1'), 'https://hooks.example.com');
  assert.equal(receiverOf('https://hooks.example.com:443/b'), 'https://hooks.example.com');
  assert.equal(receiverOf('http://hooks.example.com:8080/b'), 'http://hooks.example.com:8080');
});

test('the gate caps sends per receiver, backs a timed-out receiver off, doubling, and an answer ends the streak', () => {
  let clock = 1_000_000;
  const gate = createReceiverGate({ cap: 2, backoffMs: 1000, maxBackoffMs: 3000, now: () => clock });
  const r = 'http://slow.test';
  assert.equal(gate.spare(r), 2);
  gate.begin(r);
  gate.begin(r);
  assert.equal(gate.spare(r), 0, 'at its cap');
  // Two sends started together time out together: one step of backoff.
  gate.end(r, 'timedOut');
  gate.end(r, 'timedOut');
  assert.equal(gate.spare(r), 0, 'backed off');
  assert.equal(gate.backedOffUntil(r), clock + 1000);
  assert.equal(gate.spare('http://other.test'), 2, 'others are not');
  clock += 1001;
  assert.equal(gate.spare(r), 2, 'the backoff ended');
  gate.begin(r);
  gate.end(r, 'timedOut');
  assert.equal(gate.backedOffUntil(r), clock + 2000, 'doubled');
  clock += 2001;
  gate.begin(r);
  gate.end(r, 'timedOut');
  assert.equal(gate.backedOffUntil(r), clock + 3000, 'at most maxBackoffMs');
  clock += 3001;
  gate.begin(r);
  gate.end(r, 'answered');
  gate.begin(r);
  gate.end(r, 'timedOut');
  assert.equal(gate.backedOffUntil(r), clock + 1000, 'an answer started the streak over');
  clock += 1001;
  gate.begin(r);
  gate.end(r, 'other');
  assert.equal(gate.backedOffUntil(r), null, 'a connection error does not back off');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAgentTable, UNINTERNED } from './agents.js';
import { createUaClassifier } from '../visitors/visitor.js';
import type { UaTraits } from '../visitors/visitor.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

/** A classifier that counts its calls: a bot when the text says so. */
function counting() {
  const calls: string[] = [];
  const classify = (ua: string): UaTraits => {
    calls.push(ua);
    return { bot: ua.includes('bot'), device: 'Desktop', browser: 'B', os: ua.startsWith('ios') ? 'iOS' : 'Linux' };
  };
  return { calls, classify };
}

test('agents: one id per distinct header, stable while the epoch lasts; traits from the real classifier', () => {
  const agents = createAgentTable({ classify: createUaClassifier() });
  const chrome = agents.id(CHROME);
  const iphone = agents.id(IPHONE);
  const bot = agents.id(GOOGLEBOT);
  assert.deepEqual([chrome, iphone, bot], [0, 1, 2]);
  // A fresh string of the same text (as every request brings) is the same agent.
  assert.equal(agents.id([...CHROME].join('')), chrome);
  assert.equal(agents.bot(chrome), false);
  assert.equal(agents.bot(bot), true);
  assert.equal(agents.traits(iphone).os, 'iOS');
  assert.equal(agents.value(iphone), IPHONE);
  assert.equal(agents.id(''), 3, 'an absent header is an agent too');
  assert.equal(agents.epoch, 0);
  assert.equal(agents.size, 4);
});

test('agents: the bot decision is made once per distinct agent, not per click', () => {
  const { calls, classify } = counting();
  const agents = createAgentTable({ classify });
  for (let i = 0; i < 10_000; i++) {
    const id = agents.id(i % 2 ? 'crawler bot/1.0' : 'ios browser');
    assert.equal(agents.bot(id), i % 2 === 1);
  }
  assert.deepEqual(calls, ['ios browser', 'crawler bot/1.0']);
});

test('agents: a flood of distinct user agents stays within the bounds (entries and characters) by starting new epochs', () => {
  const { calls, classify } = counting();
  const agents = createAgentTable({ classify, maxEntries: 1000, maxChars: 50_000 });
  let epochs = 0;
  let lastEpoch = 0;
  for (let i = 0; i < 200_000; i++) {
    // Lengths up to ~200 characters: the character bound is reached before the entry bound.
    const ua = `flood-agent/${i} ${'x'.repeat(i % 190)}`;
    const id = agents.id(ua);
    assert.ok(id >= 0 && id < 1000);
    assert.ok(agents.size <= 1000, `size ${agents.size} at ${i}`);
    assert.ok(agents.chars <= 50_000, `chars ${agents.chars} at ${i}`);
    assert.equal(agents.value(id), ua);
    if (agents.epoch !== lastEpoch) {
      assert.equal(agents.epoch, lastEpoch + 1);
      assert.equal(id, 0, 'a new epoch starts its ids from 0');
      lastEpoch = agents.epoch;
      epochs++;
    }
  }
  assert.ok(epochs > 200, `the table started over ${epochs} times`);
  assert.equal(calls.length, 200_000, 'each new agent classified once');
  // After the flood the table still works: a known agent of this epoch keeps its id.
  const id = agents.id(CHROME);
  assert.equal(agents.id(CHROME), id);
});

test('agents: the entry bound alone starts a new epoch; agents of the old epoch are classified again when they come back', () => {
  const { calls, classify } = counting();
  const agents = createAgentTable({ classify, maxEntries: 3 });
  assert.deepEqual(['a', 'b', 'c'].map((ua) => agents.id(ua)), [0, 1, 2]);
  assert.equal(agents.epoch, 0);
  assert.equal(agents.id('d'), 0);
  assert.equal(agents.epoch, 1);
  assert.equal(agents.size, 1);
  assert.equal(agents.id('a'), 1, 'a is new in epoch 1');
  assert.deepEqual(calls, ['a', 'b', 'c', 'd', 'a']);
});

test('agents: a header longer than the whole table is never interned, classified each time', () => {
  const { calls, classify } = counting();
  const agents = createAgentTable({ classify, maxChars: 100 });
  const long = `bot ${'y'.repeat(200)}`;
  assert.equal(agents.id(long), UNINTERNED);
  assert.equal(agents.bot(UNINTERNED), true);
  assert.equal(agents.id(long), UNINTERNED);
  assert.equal(calls.length, 2);
  assert.equal(agents.size, 0);
  assert.equal(agents.chars, 0);
  assert.equal(agents.epoch, 0, 'nothing was forgotten for it');
});

test('agents: an agent\'s key is the same in every epoch, and distinct agents have distinct keys', () => {
  const { classify } = counting();
  const agents = createAgentTable({ classify, maxEntries: 2, maxChars: 1000 });
  const first = agents.key(agents.id('agent a'));
  agents.id('agent b');
  agents.id('agent c'); // a new epoch
  assert.equal(agents.epoch, 1);
  const again = agents.id('agent a');
  assert.equal(agents.key(again), first, 'same text, same key, whatever the id');
  const keys = new Set<number>();
  for (let i = 0; i < 20_000; i++) keys.add(agents.key(agents.id(`agent ${i}`)));
  assert.ok(keys.size >= 19_990, `${keys.size} keys for 20,000 agents`);
  for (const k of keys) assert.ok(Number.isInteger(k) && k >= 0 && k <= 0xffffffff);
  // A header too long to intern still has its key (computed each time).
  const long = 'z'.repeat(2000);
  assert.equal(agents.id(long), UNINTERNED);
  const k1 = agents.key(UNINTERNED);
  agents.id('agent x');
  assert.equal(agents.id(long), UNINTERNED);
  assert.equal(agents.key(UNINTERNED), k1);
  // Another table has another seed: keys are not chosen from outside the process.
  const other = createAgentTable({ classify });
  let same = 0;
  for (let i = 0; i < 100; i++) if (other.key(other.id(`agent ${i}`)) === agents.key(agents.id(`agent ${i}`))) same++;
  assert.ok(same < 5, `${same} of 100 keys equal across tables`);
});

/**
 * The redirect thread's user agents, interned: each distinct User-Agent header gets a small
 * integer id the first time it is seen, and what the redirect needs of it (the bot decision and
 * the OS, from one `classify` call, and a 32-bit key of its text) is kept by id. A click then
 * costs one `Map` lookup of its header; the repeat-visit check (dedup.ts) and the click ring use
 * integers read by id, not the string.
 *
 * Bounds: at most `maxEntries` agents and `maxChars` characters of them. A new agent that does not
 * fit starts a new **epoch**: the table forgets every agent and ids start from 0 again, so a flood
 * of distinct user agents costs at most the bound, whatever its length. An id names an agent only
 * within its epoch (the click ring keys its own ids with it); what must outlive an epoch, the
 * repeat-visit memory of an hour, uses the agent's `key` instead: a seeded hash of its text,
 * computed once per agent, the same in every epoch. A header longer than `maxChars` is never
 * interned: it gets `UNINTERNED` (its traits and key computed each time, not kept).
 *
 * @example
 * const agents = createAgentTable({ classify: createUaClassifier() });
 * const id = agents.id(req.headers['user-agent'] ?? '');
 * if (agents.bot(id)) …; dedup.check(link.id, ip, agents.key(id), now);
 */
import { randomInt } from 'node:crypto';
import type { UaTraits } from '../visitors/visitor.js';

/** The id of a header too long to intern (no agent of the table has it). */
export const UNINTERNED = -1;

export interface AgentTableOptions {
  /** The classifier (called once per distinct agent of an epoch). */
  classify: (ua: string) => UaTraits;
  /** Agents held at most (default 16,384). */
  maxEntries?: number;
  /** Characters held at most, all agents together (default 2,097,152: ~4 MB of strings). */
  maxChars?: number;
}

export interface AgentTable {
  /** The id of `ua` in the current epoch; new agents are interned (a full table starts a new epoch first). */
  id(ua: string): number;
  /** Bumped each time the table starts over; ids of another epoch name other agents. */
  readonly epoch: number;
  /** The agent's traits (`UNINTERNED`: those of the last header too long to intern). */
  traits(id: number): UaTraits;
  /** The bot decision of an agent, from a byte array (no object read). */
  bot(id: number): boolean;
  /** A 32-bit key of the agent's text, the same in every epoch (seeded per table): for the repeat-visit check. */
  key(id: number): number;
  /** The header of an agent of the current epoch. */
  value(id: number): string;
  /** Agents held. */
  readonly size: number;
  /** Characters held. */
  readonly chars: number;
}

export function createAgentTable(options: AgentTableOptions): AgentTable {
  const maxEntries = options.maxEntries ?? 16_384;
  const maxChars = options.maxChars ?? 2_097_152;
  const classify = options.classify;
  let ids = new Map<string, number>();
  let values: string[] = [];
  let traits: UaTraits[] = [];
  const bots = new Uint8Array(maxEntries);
  const keys = new Uint32Array(maxEntries);
  // Seeded per process, so nobody can choose two agents of the same key.
  const seed = randomInt(0x7fffffff);
  const keyOf = (ua: string): number => {
    // FNV-1a over the characters, then a final mix.
    let h = 0x811c9dc5 ^ seed;
    for (let i = 0; i < ua.length; i++) h = Math.imul(h ^ ua.charCodeAt(i), 16777619);
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    return (h ^ (h >>> 16)) >>> 0;
  };
  let chars = 0;
  let epoch = 0;
  let uninterned: UaTraits = { bot: false, device: 'Desktop', browser: 'Unknown', os: 'Unknown' };
  let uninternedBot = false;
  let uninternedKey = 0;

  return {
    id(ua) {
      const known = ids.get(ua);
      if (known !== undefined) return known;
      if (ua.length > maxChars) {
        uninterned = classify(ua);
        uninternedBot = uninterned.bot;
        uninternedKey = keyOf(ua);
        return UNINTERNED;
      }
      if (values.length >= maxEntries || chars + ua.length > maxChars) {
        ids = new Map();
        values = [];
        traits = [];
        chars = 0;
        epoch++;
      }
      const id = values.length;
      const t = classify(ua);
      values.push(ua);
      traits.push(t);
      bots[id] = t.bot ? 1 : 0;
      keys[id] = keyOf(ua);
      ids.set(ua, id);
      chars += ua.length;
      return id;
    },
    get epoch() {
      return epoch;
    },
    traits: (id) => (id === UNINTERNED ? uninterned : traits[id]!),
    bot: (id) => (id === UNINTERNED ? uninternedBot : bots[id] === 1),
    key: (id) => (id === UNINTERNED ? uninternedKey : keys[id]!),
    value: (id) => values[id] ?? '',
    get size() {
      return values.length;
    },
    get chars() {
      return chars;
    },
  };
}

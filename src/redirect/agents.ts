/**
 * The redirect thread's user agents, interned: each distinct User-Agent header gets a small
 * integer id the first time it is seen, and what the redirect needs of it (the bot decision and
 * the OS, from one `classify` call) is kept by id. A click then costs one `Map` lookup of its
 * header; the repeat-visit check (dedup.ts) and the click ring use the id, not the string.
 *
 * Bounds: at most `maxEntries` agents and `maxChars` characters of them. A new agent that does not
 * fit starts a new **epoch**: the table forgets every agent and ids start from 0 again, so a flood
 * of distinct user agents costs at most the bound, whatever its length. An id names an agent only
 * within its epoch: whoever keeps ids longer than a click (the deduplicator) keys them with the
 * epoch (`epoch`). A header longer than `maxChars` is never interned: it gets `UNINTERNED` (its
 * traits classified each time, not kept).
 *
 * @example
 * const agents = createAgentTable({ classify: createUaClassifier() });
 * const id = agents.id(req.headers['user-agent'] ?? '');
 * if (agents.bot(id)) …; dedup.check(link.id, ip, id, agents.epoch, now);
 */
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
  let chars = 0;
  let epoch = 0;
  let uninterned: UaTraits = { bot: false, device: 'Desktop', browser: 'Unknown', os: 'Unknown' };
  let uninternedBot = false;

  return {
    id(ua) {
      const known = ids.get(ua);
      if (known !== undefined) return known;
      if (ua.length > maxChars) {
        uninterned = classify(ua);
        uninternedBot = uninterned.bot;
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
      ids.set(ua, id);
      chars += ua.length;
      return id;
    },
    get epoch() {
      return epoch;
    },
    traits: (id) => (id === UNINTERNED ? uninterned : traits[id]!),
    bot: (id) => (id === UNINTERNED ? uninternedBot : bots[id] === 1),
    value: (id) => values[id] ?? '',
    get size() {
      return values.length;
    },
    get chars() {
      return chars;
    },
  };
}

/**
 * The click ring: the redirect thread writes each new click as one fixed-size row of integers
 * into a `SharedArrayBuffer` that the log thread reads in place, so a click crosses threads
 * without an object, a JSON string or a copy. Text (the link's ids, the final URL, the user agent,
 * the referer, an IPv6 address, a location from CDN headers) is interned to small integers
 * (`InternTable`): a new value goes to the log thread once, with its id, in the message of the
 * batch that first names it (`RingBatch.entries`); repeats cost a `Map` lookup.
 *
 * Row layout (ROW_BYTES = 48; words of 32 bits): time (float64, words 0-1), the click id's two
 * random parts (2, 3), then the link, URL, address, user agent, referer and location ids (4-9),
 * the flags (10: qr, address is IPv6, the dictionary generation), word 11 unused. An IPv4 address
 * is the integer itself. A row's position is its sequence number modulo the ring's capacity.
 *
 * Bounds: each table holds at most `maxEntries` values and `maxChars` characters. When a value
 * does not fit, the tables start a new generation (ids from 0 again), allowed only once no row of
 * the generation before the current one is still uncommitted: the log thread keeps the
 * dictionaries of two generations (one per parity). When even that is not allowed (a flood of
 * distinct values faster than the log commits), the value is not interned: the row names NONE for
 * it (stored as an empty user agent or referer, counted in `notInterned`).
 *
 * @example
 * const ring = createClickRing({ capacity: 65_536 });           // redirect thread
 * const seq = ring.write(click, tail);                           // undefined: the ring is full
 * const batch = ring.batch(from, to);                            // → log thread, with ring.buffer once
 * createRingReader(ring.buffer, clickIdOf).columns(batch, enrich); // log thread (ring-reader.ts)
 */
import type { GeoResult } from '../../visitors/geo.js';
import type { RawClick } from './raw-click.js';

export const ROW_BYTES = 48;
export const ROW_WORDS = ROW_BYTES / 4;
/** An id that names no value (no referer, no location, a value that could not be interned). */
export const NONE = 0xffffffff;
export const FLAG_QR = 1;
export const FLAG_IPV6 = 2;
export const GEN_SHIFT = 8;

/** The ring's dictionaries, in the order of `RingBatch.entries`. */
export const RING_TABLES = ['link', 'url', 'ip', 'ua', 'referer', 'geo'] as const;
export type RingTable = (typeof RING_TABLES)[number];

/** New dictionary values of one table: [id, value, id, value, …]. */
export type RingEntries = (number | string)[];

/** New values of one generation. */
export interface RingDictionary {
  generation: number;
  /** True when `generation` starts here: the log thread forgets what it held under that parity. */
  fresh: boolean;
  /** Per table (RING_TABLES order). */
  entries: RingEntries[];
}

/** What the log thread is told of a batch: rows `from` ≤ seq < `to`, and the values named since the last batch. */
export interface RingBatch {
  from: number;
  to: number;
  /** Oldest generation first (two when a generation began since the last batch). */
  dictionaries: RingDictionary[];
}

export interface InternTableOptions {
  /** Values held at most (default 65,536). */
  maxEntries?: number;
  /** Characters held at most, all values together (default 4,194,304: ~8 MB of strings). */
  maxChars?: number;
}

/**
 * One dictionary on the redirect thread: value → id within the current generation, with the values
 * of the current and the previous generation by id (to spell rows back: spills, `pending`).
 */
export class InternTable {
  readonly maxEntries: number;
  readonly maxChars: number;
  private ids = new Map<string, number>();
  private values: string[] = [];
  private previous: string[] = [];
  private chars = 0;
  private previousChars = 0;
  /** Values added since the last `takeEntries`. */
  private fresh: RingEntries = [];

  constructor(options: InternTableOptions = {}) {
    this.maxEntries = options.maxEntries ?? 65_536;
    this.maxChars = options.maxChars ?? 4_194_304;
  }

  /** The id of `value`; undefined when it is new and does not fit in this generation. */
  id(value: string): number | undefined {
    const known = this.ids.get(value);
    if (known !== undefined) return known;
    if (this.values.length >= this.maxEntries || this.chars + value.length > this.maxChars) return undefined;
    const id = this.values.length;
    this.values.push(value);
    this.ids.set(value, id);
    this.chars += value.length;
    this.fresh.push(id, value);
    return id;
  }

  /** True when a value of `length` characters could never fit (it is longer than the whole table). */
  tooLong(length: number): boolean {
    return length > this.maxChars;
  }

  /** The value of `id` in the current generation, or in the previous one. */
  value(id: number, current: boolean): string | undefined {
    return current ? this.values[id] : this.previous[id];
  }

  takeEntries(): RingEntries {
    const out = this.fresh;
    this.fresh = [];
    return out;
  }

  /** Starts over: the current values become the previous generation's. */
  reset(): void {
    this.previous = this.values;
    this.previousChars = this.chars;
    this.values = [];
    this.ids = new Map();
    this.chars = 0;
    this.fresh = [];
  }

  get size(): number {
    return this.values.length;
  }
  /** Characters held: this generation's and the previous one's. */
  get heldChars(): number {
    return this.chars + this.previousChars;
  }
}

export interface ClickRingOptions {
  /** Rows (default 65,536: 3 MiB). */
  capacity?: number;
  tables?: Partial<Record<RingTable, InternTableOptions>>;
}

/** IPv4 dotted quad → its integer; undefined for anything else. */
export function ipv4ToInt(ip: string): number | undefined {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return undefined;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      part = part * 10 + (c - 48);
      if (++digits > 3 || part > 255) return undefined;
    } else return undefined;
  }
  if (dots !== 3 || digits === 0) return undefined;
  return value * 256 + part;
}

export function intToIpv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** The parts of a click id spelled by `clickIdOf` (visitors/click-id.ts): time, r1, r2. */
export type ClickIdOf = (ms: number, r1: number, r2: number) => string;

/** The redirect thread's side: writes rows, interns text, spells rows back. */
export interface ClickRing {
  readonly buffer: SharedArrayBuffer;
  readonly capacity: number;
  /** The next row's sequence number (rows written so far). */
  readonly head: number;
  /** Values that could not be interned (flood beyond the tables' bounds). */
  readonly notInterned: number;
  readonly generation: number;
  /**
   * Writes `click` as row `head` unless the ring is full (`head - tail` = capacity): then
   * undefined and nothing is written. `tail`: the first row not yet committed. `agent`, when
   * given: the user agent's id in the redirect's agent table (redirect/agents.ts) and that table's
   * epoch; the ring then finds the agent's id of its own by that integer, not by the text.
   */
  write(click: RawClick, random1: number, random2: number, tail: number, agent?: number, agentEpoch?: number): number | undefined;
  /** The batch message for rows [from, to), with every value first named since the last one. */
  batch(from: number, to: number): RingBatch;
  /** Row `seq` spelled back as the raw click (it must still be in the ring). */
  read(seq: number): RawClick;
  /** Time (ms) of row `seq`. */
  timeOf(seq: number): number;
  /** The sequence number of the row whose click id is `clickId`, among [from, to); undefined when none. */
  find(clickId: string, from: number, to: number): number | undefined;
  /** Bytes the ring and its tables hold now (rows, plus two bytes a character of text), for the memory bound. */
  heldBytes(): number;
}

export function createClickRing(options: ClickRingOptions & { clickIdOf: ClickIdOf }): ClickRing {
  const capacity = options.capacity ?? 65_536;
  const tables = Object.fromEntries(RING_TABLES.map((t) => [t, new InternTable(options.tables?.[t])])) as Record<RingTable, InternTable>;
  const buffer = new SharedArrayBuffer(capacity * ROW_BYTES);
  const words = new Uint32Array(buffer);
  const times = new Float64Array(buffer);
  let head = 0;
  let generation = 0;
  // The first row of the current generation: the previous one is gone once the tail passed it.
  let generationStart = 0;
  let fresh = false;
  // Values of generations that ended since the last batch, not sent yet.
  let unsent: RingDictionary[] = [];
  let notInterned = 0;
  const table = (name: RingTable) => tables[name];
  const [linkTable, urlTable, ipTable, uaTable, refererTable, geoTable] = RING_TABLES.map((t) => tables[t]) as [InternTable, InternTable, InternTable, InternTable, InternTable, InternTable];
  // A link's id in this generation by link id, with the fields it was interned with: a click of a
  // known link costs one lookup, not a joined string (a link's domain or key may change: compared).
  let links = new Map<string, { id: number; workspaceId: string; domain: string; key: string }>();
  // The ring's user-agent id by the redirect's agent id, for one generation of the ring and one
  // epoch of the agent table (either starting over empties it); bounded by the agent table.
  let uaByAgent: number[] = [];
  let mapGeneration = 0;
  let mapEpoch = 0;
  const agentUa = (click: RawClick, agent: number, agentEpoch: number, tail: number): number => {
    if (agentEpoch !== mapEpoch || generation !== mapGeneration) {
      uaByAgent = [];
      mapEpoch = agentEpoch;
      mapGeneration = generation;
    }
    const known = uaByAgent[agent];
    if (known !== undefined) return known;
    const id = intern(uaTable, click.ua, tail);
    // Not kept when interning it began a new generation (this pass is then written again).
    if (id !== NONE && generation === mapGeneration) uaByAgent[agent] = id;
    return id;
  };
  const takeDictionary = (): RingDictionary => {
    const out = { generation, fresh, entries: RING_TABLES.map((t) => tables[t].takeEntries()) };
    fresh = false;
    return out;
  };

  /** A new generation, when no row of the one before the current is uncommitted. */
  function tryReset(tail: number): boolean {
    if (tail < generationStart) return false;
    unsent.push(takeDictionary());
    for (const t of RING_TABLES) tables[t].reset();
    links = new Map();
    generation++;
    generationStart = head;
    fresh = true;
    return true;
  }

  function intern(t: InternTable, value: string, tail: number): number {
    let id = t.id(value);
    if (id === undefined && !t.tooLong(value.length) && tryReset(tail)) id = t.id(value);
    if (id === undefined) {
      notInterned++;
      return NONE;
    }
    return id;
  }

  const ring: ClickRing = {
    buffer,
    capacity,
    get head() {
      return head;
    },
    get notInterned() {
      return notInterned;
    },
    get generation() {
      return generation;
    },

    write(click, random1, random2, tail, agent, agentEpoch) {
      if (head - tail >= capacity) return undefined;
      const v4 = ipv4ToInt(click.ip);
      let link = 0, url = 0, ip = 0, ua = 0, referer = 0, geo = 0;
      // A new generation begun by a later field leaves the earlier ids in the old one: once more
      // (the second pass fits in the fresh tables, so it begins none).
      for (let pass = 0; pass < 2; pass++) {
        const started = generation;
        const known = links.get(click.linkId);
        if (known !== undefined && known.workspaceId === click.workspaceId && known.domain === click.domain && known.key === click.key) link = known.id;
        else {
          link = intern(linkTable, `${click.linkId}\n${click.workspaceId}\n${click.domain}\n${click.key}`, tail);
          if (link !== NONE && generation === started) links.set(click.linkId, { id: link, workspaceId: click.workspaceId, domain: click.domain, key: click.key });
        }
        url = intern(urlTable, click.url, tail);
        ip = v4 ?? intern(ipTable, click.ip, tail);
        ua = agent !== undefined && agent >= 0 ? agentUa(click, agent, agentEpoch ?? 0, tail) : intern(uaTable, click.ua, tail);
        referer = click.referer === '' ? NONE : intern(refererTable, click.referer, tail);
        geo = click.geo === null ? NONE : intern(geoTable, JSON.stringify(click.geo), tail);
        if (generation === started) break;
      }
      const at = head % capacity;
      const w = at * ROW_WORDS;
      times[w / 2] = click.timestamp;
      words[w + 2] = random1;
      words[w + 3] = random2;
      words[w + 4] = link;
      words[w + 5] = url;
      words[w + 6] = ip;
      words[w + 7] = ua;
      words[w + 8] = referer;
      words[w + 9] = geo;
      words[w + 10] = (click.qr ? FLAG_QR : 0) | (v4 === undefined ? FLAG_IPV6 : 0) | ((generation & 0xffffff) << GEN_SHIFT);
      return head++;
    },

    batch(from, to) {
      const dictionaries = [...unsent, takeDictionary()];
      unsent = [];
      return { from, to, dictionaries };
    },

    read(seq) {
      const w = (seq % capacity) * ROW_WORDS;
      const flags = words[w + 10]!;
      const current = flags >>> GEN_SHIFT === (generation & 0xffffff);
      const text = (name: RingTable, id: number) => (id === NONE ? '' : (table(name).value(id, current) ?? ''));
      const [linkId = '', workspaceId = '', domain = '', key = ''] = text('link', words[w + 4]!).split('\n');
      const geo = words[w + 9]!;
      return {
        id: options.clickIdOf(times[w / 2]!, words[w + 2]!, words[w + 3]!),
        timestamp: times[w / 2]!,
        linkId,
        workspaceId,
        domain,
        key,
        url: text('url', words[w + 5]!),
        ip: flags & FLAG_IPV6 ? text('ip', words[w + 6]!) : intToIpv4(words[w + 6]!),
        ua: text('ua', words[w + 7]!),
        referer: text('referer', words[w + 8]!),
        qr: (flags & FLAG_QR) !== 0,
        geo: geo === NONE ? null : (JSON.parse(text('geo', geo)) as GeoResult),
      };
    },

    timeOf(seq) {
      return times[((seq % capacity) * ROW_WORDS) / 2]!;
    },

    find(clickId, from, to) {
      for (let seq = to - 1; seq >= from; seq--) {
        const w = (seq % capacity) * ROW_WORDS;
        if (options.clickIdOf(times[w / 2]!, words[w + 2]!, words[w + 3]!) === clickId) return seq;
      }
      return undefined;
    },

    heldBytes() {
      let chars = 0;
      for (const t of RING_TABLES) chars += tables[t].heldChars;
      return buffer.byteLength + chars * 2;
    },
  };
  return ring;
}

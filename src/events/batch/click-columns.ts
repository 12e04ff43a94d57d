/**
 * A batch of clicks in columns: one typed array per column, whose values are indices into the
 * batch's own dictionaries, where each distinct text (a link with its ids, a URL with its UTM
 * values, an agent with its traits, a referer, a place, an address) is held once. The log thread
 * builds it straight from the ring's rows (../log/ring-columns.ts), so a stored click is no object
 * on its way to the store; a store writes the columns as they are, or wide rows from them
 * (wide-rows.ts `rowsOf`), and the fold counts per link from the columns (`linkCounts`).
 *
 * A batch is self-contained: its dictionaries hold every value its rows name, each once, and no
 * id outlives the batch. A retried or replayed batch means the same thing to any store, and a
 * store that keeps dictionaries of its own maps the batch's values to its ids in the batch's
 * transaction.
 *
 * @example
 * // 3 clicks of one link, two agents, no referer:
 * // time    [1.7e12, 1.7e12+5, 1.7e12+9]   random [r1,r2, r1,r2, r1,r2] (click id: clickIdOf(time, r1, r2))
 * // link    [0, 0, 0]   → links   [{ link_id: 'lnk_1', workspace_id: 'ws_1', domain: 'wm.to', key: 'a' }]
 * // agent   [0, 1, 0]   → agents  [{ ua: 'Mozilla/5.0 …', device: 'Desktop', … }, { ua: 'curl/8', … }]
 * // referer [0, 0, 0]   → referers [{ referer: '(direct)', referer_url: '(direct)' }]
 * const rows = rowsOf(columns);             // wide-rows.ts: the wide StoredEvent rows, for stores that keep them
 * const again = columnsOf(rows);            // and back (imports, read-back after a restart)
 */
import { clickIdOf } from '../../visitors/click-id.js';

export interface ClickLinkEntry { link_id: string; workspace_id: string; domain: string; key: string }
export interface ClickUrlEntry {
  url: string;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
}
export interface ClickAgentEntry { ua: string; device: string; browser: string; os: string }
export interface ClickRefererEntry { referer: string; referer_url: string }
export interface ClickPlaceEntry { country: string; city: string; region: string; continent: string }

/** The batch's dictionaries: each distinct value its rows name, once. */
export interface ClickDictionaries {
  links: ClickLinkEntry[];
  urls: ClickUrlEntry[];
  agents: ClickAgentEntry[];
  referers: ClickRefererEntry[];
  places: ClickPlaceEntry[];
  /** The stored form of the address (`VISITOR_IP`). */
  addresses: string[];
  /** 'link', 'qr', or what an imported click said. */
  triggers: string[];
}

/** Column names holding dictionary indices, with the dictionary each names. */
export const INDEX_COLUMNS = { link: 'links', url: 'urls', agent: 'agents', referer: 'referers', place: 'places', address: 'addresses', trigger: 'triggers' } as const satisfies Record<string, keyof ClickDictionaries>;
export type IndexColumn = keyof typeof INDEX_COLUMNS;

export interface ClickColumns extends Record<IndexColumn, Uint32Array> {
  readonly length: number;
  /** Milliseconds since the epoch. */
  readonly time: Float64Array;
  /** The click id's two random parts per click (`clickIdOf(time, r1, r2)`), when `ids` is absent. */
  readonly random: Uint32Array;
  /** Every click's id, when the ids are not of the time-and-random form (imported clicks, rows read back). */
  readonly ids?: readonly string[];
  readonly dictionaries: ClickDictionaries;
}

export const emptyDictionaries = (): ClickDictionaries => ({ links: [], urls: [], agents: [], referers: [], places: [], addresses: [], triggers: [] });

/** The id of click `i`. */
export function clickIdAt(c: ClickColumns, i: number): string {
  return c.ids ? c.ids[i]! : clickIdOf(c.time[i]!, c.random[2 * i]!, c.random[2 * i + 1]!);
}

/** Refuses a batch whose arrays disagree in length or name a value its dictionaries lack (it came over a port: hostile). */
export function checkColumns(c: ClickColumns): void {
  const n = c.length;
  if (!Number.isInteger(n) || n < 0 || !(c.time instanceof Float64Array) || c.time.length !== n) throw new Error('malformed click columns: time');
  if (c.ids ? !Array.isArray(c.ids) || c.ids.length !== n || c.ids.some((id) => typeof id !== 'string') : !(c.random instanceof Uint32Array) || c.random.length !== 2 * n) throw new Error('malformed click columns: ids');
  for (const [column, dict] of Object.entries(INDEX_COLUMNS) as [IndexColumn, keyof ClickDictionaries][]) {
    const values = c[column];
    const size = c.dictionaries?.[dict]?.length;
    if (!(values instanceof Uint32Array) || values.length !== n || typeof size !== 'number') throw new Error(`malformed click columns: ${column}`);
    for (let i = 0; i < n; i++) if (values[i]! >= size) throw new Error(`malformed click columns: ${column} names no value`);
  }
}

/** Value → index in one of a batch's dictionaries, by a key that spells the value. */
export class BatchDictionary<T> {
  readonly values: T[] = [];
  private readonly index = new Map<string, number>();
  indexOf(key: string, value: () => T): number {
    let at = this.index.get(key);
    if (at === undefined) {
      at = this.values.push(value()) - 1;
      this.index.set(key, at);
    }
    return at;
  }
}

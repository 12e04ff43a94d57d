/**
 * The log thread's side of the click ring (click-ring.ts): the ring's rows read in place, with the
 * dictionaries of two generations. `columns` turns a batch's rows straight into a columnar batch
 * (../batch/click-columns.ts), enriched once per distinct value: an agent's traits, a URL's UTM
 * values, a referer's host and a CDN location once per id of a generation (kept until that
 * generation's parity starts over, so bounded by the ring's intern tables); a location and a
 * stored address once per distinct address of the batch. `read` spells rows as raw clicks (tests,
 * and anything that wants the redirect's view).
 *
 * @example
 * const reader = createRingReader(buffer, clickIdOf);
 * const columns = reader.columns(batch, createColumnEnricher({ geo, classify, ipMode }));
 */
import type { GeoResult } from '../../visitors/geo.js';
import type { RawClick } from './raw-click.js';
import { FLAG_IPV6, FLAG_QR, GEN_SHIFT, intToIpv4, NONE, RING_TABLES, ROW_BYTES, ROW_WORDS, type ClickIdOf, type RingBatch } from './click-ring.js';
import { BatchDictionary, type ClickAgentEntry, type ClickColumns, type ClickLinkEntry, type ClickPlaceEntry, type ClickRefererEntry, type ClickUrlEntry } from '../batch/click-columns.js';
import type { ColumnEnricher } from './column-enrich.js';

export interface RingReader {
  /** Applies a batch's new values, then spells its rows as raw clicks. */
  read(batch: RingBatch): RawClick[];
  /**
   * Applies a batch's new values (at once, in the order batches come, while its rows may wait to
   * be read: the ring keeps them until stored, and a generation's parity starts over only once
   * they are).
   */
  accept(batch: RingBatch): void;
  /** `accept`, then reads the batch's rows as enriched columns. */
  columns(batch: RingBatch, enrich: ColumnEnricher): ClickColumns;
  /** Enriched values held across batches (the bound: two generations of the ring's tables). */
  heldEntries(): number;
}

/** Triggers by the row's QR flag. */
const TRIGGERS = ['link', 'qr'];
const [T_LINK, T_URL, T_IP, T_UA, T_REFERER, T_GEO] = RING_TABLES.map((_, i) => i) as [number, number, number, number, number, number];

/** Enriched values of one generation, by the ring's ids. */
interface Enriched {
  url: (ClickUrlEntry | undefined)[];
  agent: (ClickAgentEntry | undefined)[];
  referer: (ClickRefererEntry | undefined)[];
  place: (ClickPlaceEntry | undefined)[];
}
const noneEnriched = (): Enriched => ({ url: [], agent: [], referer: [], place: [] });

export function createRingReader(buffer: SharedArrayBuffer, clickIdOf: ClickIdOf): RingReader {
  const capacity = buffer.byteLength / ROW_BYTES;
  const words = new Uint32Array(buffer);
  const times = new Float64Array(buffer);
  // dictionaries[parity][table][id]; a link's entry kept split into its four fields.
  const dictionaries: string[][][] = [RING_TABLES.map(() => []), RING_TABLES.map(() => [])];
  const splitLinks: string[][][] = [[], []];
  const enriched: Enriched[] = [noneEnriched(), noneEnriched()];
  // An absent referer, by parity (NONE is no index of an array).
  const noReferer: (ClickRefererEntry | undefined)[] = [undefined, undefined];
  const generations = [-1, -1];

  function apply(batch: RingBatch): void {
    for (const d of batch.dictionaries) {
      const parity = d.generation & 1;
      if (d.fresh && generations[parity] !== d.generation) {
        dictionaries[parity] = RING_TABLES.map(() => []);
        splitLinks[parity] = [];
        enriched[parity] = noneEnriched();
      }
      generations[parity] = d.generation;
      const dict = dictionaries[parity]!;
      d.entries.forEach((entries, t) => {
        for (let i = 0; i < entries.length; i += 2) dict[t]![entries[i] as number] = entries[i + 1] as string;
      });
      const linkEntries = d.entries[T_LINK]!;
      for (let i = 0; i < linkEntries.length; i += 2) splitLinks[parity]![linkEntries[i] as number] = (linkEntries[i + 1] as string).split('\n');
    }
  }

  return {
    accept: apply,
    read(batch) {
      apply(batch);
      const out: RawClick[] = [];
      for (let seq = batch.from; seq < batch.to; seq++) {
        const w = (seq % capacity) * ROW_WORDS;
        const flags = words[w + 10]!;
        const parity = (flags >>> GEN_SHIFT) & 1;
        const d = dictionaries[parity]!;
        const text = (t: number, id: number) => (id === NONE ? '' : (d[t]![id] ?? ''));
        const [linkId = '', workspaceId = '', domain = '', key = ''] = splitLinks[parity]![words[w + 4]!] ?? [];
        const geo = words[w + 9]!;
        out.push({
          id: clickIdOf(times[w / 2]!, words[w + 2]!, words[w + 3]!),
          timestamp: times[w / 2]!,
          linkId,
          workspaceId,
          domain,
          key,
          url: text(T_URL, words[w + 5]!),
          ip: flags & FLAG_IPV6 ? text(T_IP, words[w + 6]!) : intToIpv4(words[w + 6]!),
          ua: text(T_UA, words[w + 7]!),
          referer: text(T_REFERER, words[w + 8]!),
          qr: (flags & FLAG_QR) !== 0,
          geo: geo === NONE ? null : (JSON.parse(text(T_GEO, geo)) as GeoResult),
        });
      }
      return out;
    },

    columns(batch, enrich) {
      apply(batch);
      const n = Math.max(0, batch.to - batch.from);
      const time = new Float64Array(n);
      const random = new Uint32Array(2 * n);
      const [link, url, agent, referer, place, address, trigger] = Array.from({ length: 7 }, () => new Uint32Array(n)) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
      const links: ClickLinkEntry[] = [];
      const urls: ClickUrlEntry[] = [];
      const agents: ClickAgentEntry[] = [];
      const referers: ClickRefererEntry[] = [];
      const places = new BatchDictionary<ClickPlaceEntry>();
      const addresses: string[] = [];
      // Ring id (with its parity) → index in this batch's dictionary.
      const local = RING_TABLES.map(() => new Map<number, number>());
      // Address (an IPv4 integer, or an IPv6 id past 2^33) → this batch's address and place.
      const addressAt = new Map<number, number>();
      const placeAt = new Map<number, number>();
      const indexIn = <T>(table: number, parity: number, id: number, out: T[], value: () => T): number => {
        const key = id * 2 + parity;
        const m = local[table]!;
        let at = m.get(key);
        if (at === undefined) m.set(key, (at = out.push(value()) - 1));
        return at;
      };
      const placeIndex = (p: ClickPlaceEntry) => places.indexOf(`${p.country}\n${p.region}\n${p.city}\n${p.continent}`, () => p);
      for (let i = 0; i < n; i++) {
        const w = ((batch.from + i) % capacity) * ROW_WORDS;
        const flags = words[w + 10]!;
        const parity = (flags >>> GEN_SHIFT) & 1;
        const d = dictionaries[parity]!;
        const e = enriched[parity]!;
        const text = (t: number, id: number) => (id === NONE ? '' : (d[t]![id] ?? ''));
        time[i] = times[w / 2]!;
        random[2 * i] = words[w + 2]!;
        random[2 * i + 1] = words[w + 3]!;
        const linkId = words[w + 4]!;
        link[i] = indexIn(T_LINK, parity, linkId, links, () => {
          const [link_id = '', workspace_id = '', domain = '', key = ''] = splitLinks[parity]![linkId] ?? [];
          return { link_id, workspace_id, domain, key };
        });
        const urlId = words[w + 5]!;
        url[i] = indexIn(T_URL, parity, urlId, urls, () => (urlId === NONE ? enrich.url('') : (e.url[urlId] ??= enrich.url(text(T_URL, urlId)))));
        const uaId = words[w + 7]!;
        agent[i] = indexIn(T_UA, parity, uaId, agents, () => (uaId === NONE ? enrich.agent('') : (e.agent[uaId] ??= enrich.agent(text(T_UA, uaId)))));
        const refId = words[w + 8]!;
        referer[i] = indexIn(T_REFERER, parity, refId, referers, () => (refId === NONE ? (noReferer[parity] ??= enrich.referer('')) : (e.referer[refId] ??= enrich.referer(text(T_REFERER, refId)))));
        const v6 = (flags & FLAG_IPV6) !== 0;
        const ipWord = words[w + 6]!;
        const addressKey = v6 ? 2 ** 33 + ipWord * 2 + parity : ipWord;
        const ipText = () => (v6 ? text(T_IP, ipWord) : intToIpv4(ipWord));
        let a = addressAt.get(addressKey);
        if (a === undefined) addressAt.set(addressKey, (a = addresses.push(enrich.address(ipText())) - 1));
        address[i] = a;
        const geoId = words[w + 9]!;
        if (geoId === NONE) {
          let p = placeAt.get(addressKey);
          if (p === undefined) placeAt.set(addressKey, (p = placeIndex(enrich.place(ipText()))));
          place[i] = p;
        } else place[i] = placeIndex((e.place[geoId] ??= enrich.placeOf(JSON.parse(text(T_GEO, geoId)) as GeoResult)));
        trigger[i] = flags & FLAG_QR ? 1 : 0;
      }
      return {
        length: n, time, random, link, url, agent, referer, place, address, trigger,
        dictionaries: { links, urls, agents, referers, places: places.values, addresses, triggers: [...TRIGGERS] },
      };
    },

    heldEntries() {
      let n = 0;
      for (const e of enriched) for (const values of [e.url, e.agent, e.referer, e.place]) for (const v of values) if (v) n++;
      return n;
    },
  };
}

/**
 * Deterministic synthetic click data for the analytics benchmark, shaped like
 * storage-benchmarks.md §1: 10k links with Zipf (s = 1.0) popularity spread over 495 workspaces
 * (also Zipf), 200 countries (Zipf 1.2) × 50 cities, 20 browsers, 10 OSes, 5 device types,
 * 500 referers (Zipf 1.2, "(direct)" first), 5 % QR scans, 60 % of links with UTM parameters,
 * timestamps spread evenly over the 90 days before `end`.
 *
 * Writes go through the production path: `EventWriter.append`'s two steps (events, then rollup
 * increments) in one transaction per batch, timed separately so the rollups' cost is visible.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/tables.js';
import type { StoredEvent } from '../../src/events/sql/event-writer.js';
import { applyRollupDeltas, rollupDeltas } from '../../src/events/sql/rollup-deltas.js';
import type { SqlTexts } from '../../src/db/sql-texts.js';
import type { WorkspaceService } from '../../src/workspaces/service.js';

export interface GenerateOptions {
  events: number;
  links: number;
  workspaces: number;
  days: number;
  end: number;
  batch: number;
  domain: string;
}

export interface Generated {
  workspaceIds: string[];
  insertSeconds: number;
  rollupSeconds: number;
  totalSeconds: number;
}

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let r = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sampler of ranks 0…n-1 with P(rank k) ∝ 1/(k+1)^s. */
export function zipf(n: number, s: number, rnd: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) cdf[k] = sum += 1 / Math.pow(k + 1, s);
  return () => {
    const x = rnd() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const REAL = ['US', 'IN', 'GB', 'DE', 'BR', 'FR', 'CA', 'JP', 'ID', 'NG', 'ES', 'IT', 'MX', 'AU', 'NL', 'PH', 'PK', 'TR', 'PL', 'SE', 'KR', 'AR', 'ZA', 'EG', 'VN', 'CO', 'CH', 'BE', 'AT', 'KE'];
const CONT: Record<string, string> = {
  US: 'NA', IN: 'AS', GB: 'EU', DE: 'EU', BR: 'SA', FR: 'EU', CA: 'NA', JP: 'AS', ID: 'AS', NG: 'AF', ES: 'EU', IT: 'EU', MX: 'NA', AU: 'OC', NL: 'EU',
  PH: 'AS', PK: 'AS', TR: 'AS', PL: 'EU', SE: 'EU', KR: 'AS', AR: 'SA', ZA: 'AF', EG: 'AF', VN: 'AS', CO: 'SA', CH: 'EU', BE: 'EU', AT: 'EU', KE: 'AF',
};
const CONTINENTS = ['AF', 'AS', 'EU', 'NA', 'OC', 'SA', 'AN'];

function countries(): { code: string; continent: string }[] {
  const out = REAL.map((code) => ({ code, continent: CONT[code]! }));
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (let i = 0; out.length < 200; i++) {
    const code = `${letters[(i / 26) | 0]}${letters[i % 26]}`;
    if (!REAL.includes(code)) out.push({ code, continent: CONTINENTS[i % CONTINENTS.length]! });
  }
  return out;
}

const BROWSERS = ['Chrome', 'Mobile Safari', 'Safari', 'Edge', 'Firefox', 'Samsung Browser', 'Chrome WebView', 'Opera', 'Facebook', 'Instagram',
  'Yandex', 'UCBrowser', 'Brave', 'Vivaldi', 'Silk', 'DuckDuckGo', 'Mobile Firefox', 'Chromium', 'WeChat', 'IE'];
const OSES = ['Windows', 'iOS', 'Android', 'Mac OS', 'Linux', 'Chromium OS', 'Ubuntu', 'HarmonyOS', 'Fedora', 'Tizen'];
const DEVICES = ['Desktop', 'Mobile', 'Tablet', 'Smarttv', 'Console'];
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** Creates the workspaces and links, then streams the events in batches; returns timings. */
export async function generate(db: Kysely<Database>, workspaces: WorkspaceService, o: GenerateOptions, log: (s: string) => void): Promise<Generated> {
  const rnd = prng(42);
  const workspaceIds: string[] = [];
  for (let i = 0; i < o.workspaces; i++) workspaceIds.push((await workspaces.createWorkspace({ name: `Bench ${i}`, plan: 'enterprise' })).id);

  const pickWorkspace = zipf(o.workspaces, 1.0, rnd);
  const linkWs: string[] = [];
  const linkUrl: string[] = [];
  const created = o.end - 200 * 86_400_000;
  const rows = [];
  for (let i = 0; i < o.links; i++) {
    // Link popularity rank = i. The second most popular link sits in the first workspace, as in
    // the reference data set (its big workspace's top link had a third of its clicks).
    const ws = i === 1 ? workspaceIds[0]! : workspaceIds[pickWorkspace()]!;
    const utm = rnd() < 0.6 ? `?utm_source=${['google', 'newsletter', 'twitter', 'partner'][i % 4]}&utm_medium=${['cpc', 'email', 'social'][i % 3]}&utm_campaign=c${i % 50}` : '';
    linkWs.push(ws);
    linkUrl.push(`https://shop.example/p${i}${utm}`);
    rows.push({
      id: `link_b${i}`, workspace_id: ws, domain: o.domain, key: `k${i}`, key_lower: `k${i}`, url: linkUrl[i]!, short_link: `https://${o.domain}/k${i}`,
      archived: 0 as const, track_conversion: 0 as const, proxy: 0 as const, rewrite: 0 as const, do_index: 0 as const, public_stats: 0 as const,
      clicks: 0, leads: 0, conversions: 0, sales: 0, sale_amount: 0, created_at: created, updated_at: created,
    });
  }
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('links').values(rows.slice(i, i + 500)).execute();

  const cs = countries();
  const pickLink = zipf(o.links, 1.0, rnd);
  const pickCountry = zipf(cs.length, 1.2, rnd);
  const pickCity = zipf(50, 1.2, rnd);
  const pickBrowser = zipf(BROWSERS.length, 1.0, rnd);
  const pickOs = zipf(OSES.length, 1.0, rnd);
  const pickDevice = zipf(DEVICES.length, 1.5, rnd);
  const pickReferer = zipf(500, 1.2, rnd);
  const span = o.days * 86_400_000;
  const start = o.end - span;

  const texts: SqlTexts = new Map();
  let insertSeconds = 0;
  let rollupSeconds = 0;
  const t0 = performance.now();
  for (let done = 0; done < o.events; ) {
    const batch: StoredEvent[] = [];
    for (let j = 0; j < o.batch && done < o.events; j++, done++) {
      const link = pickLink();
      const c = cs[pickCountry()]!;
      const city = pickCity();
      const ref = pickReferer();
      const referer = ref === 0 ? '(direct)' : `site${ref}.example`;
      const refUrl = ref === 0 ? '(direct)' : `https://${referer}/${['', 'search?q=waymark', `post/${ref % 7}`][ref % 3]}`;
      const url = linkUrl[link]!;
      const q = new URL(url).searchParams;
      const id = `c${done.toString(36)}`;
      batch.push({
        workspace_id: linkWs[link]!, timestamp: start + Math.floor((done * span) / o.events), id, kind: 'click', click_id: id, link_id: `link_b${link}`,
        domain: o.domain, key: `k${link}`, url, country: c.code, city: `${c.code} City ${city}`, region: `${c.code}-R${city % 10}`, continent: c.continent,
        device: DEVICES[pickDevice()]!, browser: BROWSERS[pickBrowser()]!, os: OSES[pickOs()]!, referer, referer_url: refUrl,
        trigger: rnd() < 0.05 ? 'qr' : 'link', ip: `10.${(done >> 16) & 255}.${(done >> 8) & 255}.${done & 255}`, ua: UA,
        utm_source: q.get('utm_source'), utm_medium: q.get('utm_medium'), utm_campaign: q.get('utm_campaign'), utm_term: null, utm_content: null,
        customer_id: null, event_name: null, amount: 0, currency: null, original_amount: null, payment_processor: null, invoice_id: null, sale_type: null, metadata: null,
      });
    }
    await db.transaction().execute(async (trx) => {
      const a = performance.now();
      for (let i = 0; i < batch.length; i += 500) await trx.insertInto('events').values(batch.slice(i, i + 500)).execute();
      const b = performance.now();
      await applyRollupDeltas(trx, rollupDeltas(batch), texts);
      insertSeconds += (b - a) / 1000;
      rollupSeconds += (performance.now() - b) / 1000;
    });
    if (done % 500_000 === 0 || done === o.events) {
      const s = (performance.now() - t0) / 1000;
      log(`  ${done.toLocaleString('en')} events, ${s.toFixed(0)} s, ${(done / s).toFixed(0)} events/s (events ${insertSeconds.toFixed(0)} s, rollups ${rollupSeconds.toFixed(0)} s)`);
    }
  }
  return { workspaceIds, insertSeconds, rollupSeconds, totalSeconds: (performance.now() - t0) / 1000 };
}

/**
 * `import api` benchmark (issue 18): copies a workspace of BENCH_LINKS links and BENCH_CLICKS
 * clicks (plus a lead and a sale per 100 clicks) from one Waymark instance, listening on a
 * loopback port, into a second one's database, with `--events`, and prints the rate of each part,
 * the time of a second run (which finds everything copied) and the process's peak RSS.
 * Both instances run in this process on SQLite files (or, with DATABASE_URL=postgres://…,
 * private schemas).
 *
 * Run: npm run bench -- migration   (BENCH_LINKS default 2,000; BENCH_CLICKS default 50,000)
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { createTestApp } from '../src/test-support/harness.js';
import { runApiImport } from '../src/migration/run.js';
import { clickEvent, conversionEvent } from '../src/events/rows.js';
import type { StoredEvent } from '../src/events/event-store.js';
import { newClickId, newId } from '../src/ids.js';

const LINKS = Number(process.env.BENCH_LINKS ?? 2_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 50_000);

const source = await createTestApp();
const target = await createTestApp();
let peakRss = 0;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 100);
try {
  const base = await source.listen();
  await source.inject({ method: 'POST', url: '/domains', payload: { slug: 'go.bench.test' } });
  const links: { id: string; key: string; url: string }[] = [];
  for (let i = 0; i < LINKS; i += 100) {
    const batch = Array.from({ length: Math.min(100, LINKS - i) }, (_, j) => ({ domain: 'go.bench.test', key: `l${i + j}`, url: `https://shop.example/p/${i + j}?utm_source=s${(i + j) % 7}` }));
    const res = await source.inject({ method: 'POST', url: '/links/bulk', payload: batch });
    links.push(...(res.json() as { id: string; key: string; url: string }[]));
  }
  const start = Date.now() - 30 * 86_400_000;
  const rows: StoredEvent[] = [];
  const flush = async () => {
    await source.ctx.events.append(rows.splice(0));
  };
  for (let i = 0; i < CLICKS; i++) {
    const link = links[i % links.length]!;
    const click = clickEvent({
      workspace_id: source.workspaceId, timestamp: start + i * 40, id: newClickId(), link_id: link.id, domain: 'go.bench.test', key: link.key, url: link.url,
      country: ['US', 'DE', 'FR', 'GB'][i % 4]!, city: 'Unknown', region: 'Unknown', continent: ['NA', 'EU', 'EU', 'EU'][i % 4]!, device: i % 3 ? 'Desktop' : 'Mobile',
      browser: 'Chrome', os: 'Windows', referer: '(direct)', referer_url: '(direct)', trigger: 'link', ip: `10.0.${(i >> 8) & 255}.${i & 255}`, ua: '',
      utm_source: null, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null,
    });
    rows.push(click);
    if (i % 100 === 0) {
      const customer = newId('cus');
      await source.database.db.insertInto('customers').values({ id: customer, workspace_id: source.workspaceId, external_id: `c${i}`, name: `C ${i}`, email: null, avatar: null, country: null, processor_customer_id: null, click_id: click.id, link_id: link.id, sales: 1, sale_amount: 1000, first_sale_at: null, created_at: start, updated_at: start }).execute();
      rows.push(conversionEvent(click, { kind: 'lead', workspace_id: source.workspaceId, timestamp: click.timestamp + 1, id: newId('evt'), customer_id: customer, event_name: 'Sign up' }));
      rows.push(conversionEvent(click, { kind: 'sale', workspace_id: source.workspaceId, timestamp: click.timestamp + 2, id: newId('evt'), customer_id: customer, event_name: 'Purchase', amount: 1000, currency: 'usd', invoice_id: `inv_${randomBytes(4).toString('hex')}` }));
    }
    if (rows.length >= 2000) await flush();
  }
  await flush();

  const workspace = (await target.ctx.workspaces.findWorkspace(target.workspaceId))!;
  const phases = new Map<string, { first: number; last: number; line: string }>();
  const progress = (line: string) => {
    const name = line.split(':')[0]!;
    const now = Date.now();
    const p = phases.get(name);
    if (p) Object.assign(p, { last: now, line });
    else phases.set(name, { first: now, last: now, line });
  };
  const run = () => runApiImport({ database: target.database, config: target.config, workspace, source: { baseUrl: base, token: source.key }, events: true, eventLog: { log: target.ctx.events, conversions: target.ctx.conversions }, progress });
  const t0 = Date.now();
  const summary = await run();
  const first = (Date.now() - t0) / 1000;
  const firstLines = [...phases.values()].map((p) => p.line);
  phases.clear();
  const t1 = Date.now();
  await run();
  const second = (Date.now() - t1) / 1000;
  console.log(`engine: ${target.database.engine.split(' ')[0]}; ${LINKS} links, ${CLICKS} clicks, ${summary.events!.leads.written} leads, ${summary.events!.sales.written} sales, ${summary.customers.created} customers`);
  for (const line of firstLines) console.log(`  ${line}`);
  console.log(`first run: ${first.toFixed(1)} s; second run (everything already there): ${second.toFixed(1)} s; peak RSS ${(peakRss / 1048576).toFixed(0)} MB (both instances in this process)`);
  console.log(`machine: ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  clearInterval(rssTimer);
  await source.close();
  await target.close();
}

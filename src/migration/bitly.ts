/**
 * `waymark import bitly`: copies a Bitly account's groups (all the token sees, or one) into a
 * workspace, through Bitly's public API v4 (bitly-source.ts): the groups' branded short domains
 * (unverified), tags, and every bitlink as links with the same keys, destinations, titles, tags,
 * archived state and creation time.
 *
 * One bitlink has several addresses: the hash Bitly made (`bit.ly/3xYz`) and any custom
 * back-halves (`bit.ly/spring-sale`). Each becomes a link, so every address someone printed keeps
 * working; the first custom back-half (else the hash) is the bitlink's link, the others note in
 * `comments` whose address they are. Domains follow the domain plan (domain-plan.ts): a group's
 * branded domains come along, Bitly's shared ones (`bit.ly`, `j.mp`, …) become this installation's
 * short domain, `--domain-map` decides where it says.
 *
 * Clicks: Bitly gives a total per bitlink, not the clicks themselves. The total becomes the
 * bitlink's link's `clicks` counter (set with the link, in one transaction); no click events are
 * made up, so analytics (countries, devices, time series) count from the first click here, and
 * the counter says how many came before. Idempotent and resumable like `import api`: links are
 * matched by domain and key, and a total is asked only for a link about to be created.
 *
 * @example
 * const summary = await runBitlyImport({ database, config, workspace, token, progress: console.error });
 */
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import type { CopyOutcome } from './target.js';
import { createTarget } from './target.js';
import { SourceError } from './source.js';
import { addressOf, Bitlink, BITLY_API, createBitlySource, type BitlyGroup } from './bitly-source.js';
import { busyRetry } from './busy.js';
import { createDomainPlan } from './domain-plan.js';
import { createTally, type ImportSummary } from './tally.js';
import { assertMapTargets, once, phaseCopier } from './run.js';
import type { RejectionReport } from './report.js';

export interface BitlyImportOptions {
  database: OpenDatabase;
  config: Config;
  workspace: WorkspaceRow;
  /** A Bitly access token. */
  token: string;
  /** Default Bitly's (`https://api-ssl.bitly.com/v4`); another for a proxy or a test server. */
  baseUrl?: string;
  /** Only this group (its guid); default every group the token sees. */
  group?: string;
  domainMap?: ReadonlyMap<string, string>;
  dryRun?: boolean;
  report?: RejectionReport;
  progress?: (line: string) => void;
  now?: () => number;
  /** Bitlinks per request (Bitly's maximum and the default: 100). */
  pageSize?: number;
  /** Replaceable in tests. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  maxBusyWaitMs?: number;
}

/** A link to copy: the source link shape target.ts takes, and the bitlink whose total it carries. */
export interface Item {
  link: Record<string, unknown>;
  /** Set on a bitlink's first address. */
  totalOf?: string;
  /** Set when the record could not be read. */
  invalid?: string;
}

export async function runBitlyImport(options: BitlyImportOptions): Promise<ImportSummary> {
  const progress = options.progress ?? (() => {});
  const clock = options.now ?? Date.now;
  const bitly = createBitlySource({
    baseUrl: options.baseUrl ?? BITLY_API,
    token: options.token,
    fetch: options.fetch,
    sleep: options.sleep,
    onWait: (reason, ms) => progress(`waiting ${(ms / 1000).toFixed(1)} s (${reason})`),
  });
  const target = await createTarget({ database: options.database, config: options.config, workspace: options.workspace, now: options.now, dryRun: options.dryRun });
  const retry = busyRetry((ms) => progress(`database busy: waiting ${ms} ms`), { maxWaitMs: options.maxBusyWaitMs });
  const tally = createTally({ dryRun: options.dryRun, report: options.report, progress });
  const copy = phaseCopier({ tally, retry, progress, clock });

  const groups = selectGroups(await bitly.groups(), options.group);
  progress(`groups: ${groups.map((g) => `${g.name ?? g.guid} (${g.guid})`).join(', ')}`);
  const own = [...new Set(groups.flatMap((g) => g.bsds ?? []).map((d) => d.toLowerCase()))];
  const plan = createDomainPlan({ map: options.domainMap ?? new Map(), own, shortDomain: options.config.shortDomain });
  for (const slug of own.filter((d) => !plan.copies(d))) tally.summary.mappedDomains.push({ from: slug, to: plan.target(slug) });
  await copy('domains', once(own.filter((d) => plan.copies(d)).map((slug) => ({ slug }))), (d) => target.domain(d));
  await assertMapTargets(plan, target, options.config, options.workspace);

  // Tags by name (Bitly's tags are names): those each group lists, and any a link names beside them.
  const tagIds = new Map<string, string>();
  const copyTags = (names: string[]) =>
    copy('tags', once(names.filter((n) => !tagIds.has(n)).map((name) => ({ id: name, name }))), (t) => target.tag(t), (t, id) => tagIds.set((t as { name: string }).name, id));
  for (const g of groups) await copyTags([...new Set(await bitly.tags(g.guid))]);

  const totals = { links: 0, clicks: 0, unavailable: new Map<string, number>() };
  const asked = new Map<string, Promise<number>>();
  /** A bitlink's total, asked once; a plan that does not give it (4xx) leaves the counter at 0. */
  const totalOf = (id: string) => {
    let answer = asked.get(id);
    if (!answer) {
      answer = bitly.clicksTotal(id).then(
        (n) => {
          totals.links++;
          totals.clicks += n;
          return n;
        },
        (err: unknown) => {
          if (!(err instanceof SourceError) || !err.status || err.status >= 500 || err.status === 429) throw err;
          const reason = `${err.status} ${err.message.slice(err.message.indexOf(': ') + 2)}`;
          totals.unavailable.set(reason, (totals.unavailable.get(reason) ?? 0) + 1);
          return 0;
        },
      );
      asked.set(id, answer);
    }
    return answer;
  };

  // The phase copier sees the links (their ids, domains and keys label rejections); what else an item carries, beside.
  const itemOf = new WeakMap<object, Item>();
  for (const g of groups) {
    const links = async function* (): AsyncGenerator<Record<string, unknown>[]> {
      for await (const records of bitly.bitlinks(g.guid, options.pageSize)) {
        const items = records.flatMap(itemsOf);
        await copyTags([...new Set(items.flatMap((i) => ((i.link.tags as { name: string }[] | undefined) ?? []).map((t) => t.name)))]);
        for (const i of items) itemOf.set(i.link, i);
        yield items.map((i) => i.link);
      }
    };
    await copy('links', links(), (link) => {
      const item = itemOf.get(link as object)!;
      if (item.invalid) return Promise.resolve<CopyOutcome>({ result: 'rejected', reason: item.invalid });
      const domain = plan.target(String(item.link.domain));
      return target.link(item.link, { tags: tagIds, folders: new Map() }, { domain, clicks: item.totalOf ? () => totalOf(item.totalOf!) : undefined });
    }, (link) => {
      const from = String((link as { domain: unknown }).domain);
      plan.noteMove(from, plan.target(from));
    });
  }

  if (totals.links) tally.summary.notes.push(`click totals: ${totals.clicks} clicks of ${totals.links} bitlinks set as their links' counters (Bitly gives totals, not clicks: analytics count from the first click here)`);
  for (const [reason, n] of totals.unavailable) tally.summary.notes.push(`click totals not available for ${n} bitlinks (${reason}): their counters start at 0`);
  return tally.finish(plan.moves());
}

/** The groups to copy: the one `guid` names, else every active group. */
function selectGroups(groups: BitlyGroup[], guid: string | undefined): BitlyGroup[] {
  const list = groups.map((g) => `${g.guid} (${g.name ?? 'unnamed'})`).join(', ') || 'none';
  if (guid) {
    const found = groups.filter((g) => g.guid === guid);
    if (!found.length) throw new SourceError(`--group ${guid}: the token sees no such group; it sees ${list}`);
    return found;
  }
  const active = groups.filter((g) => g.is_active !== false);
  if (!active.length) throw new SourceError(`the token sees no active Bitly group (${list})`);
  return active;
}

/** A bitlink as one link per address, the first carrying the click total. */
export function itemsOf(record: unknown): Item[] {
  const parsed = Bitlink.safeParse(record);
  const id = String((record as { id?: unknown } | null)?.id ?? '?');
  if (!parsed.success) return [{ link: { id, domain: '?', key: id }, invalid: `unreadable bitlink: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}` }];
  const b = parsed.data;
  const hash = addressOf(b.id);
  const addresses = [...(b.custom_bitlinks ?? []).map(addressOf), hash].filter((a): a is { domain: string; key: string } => !!a);
  const unique = addresses.filter((a, i) => addresses.findIndex((o) => o.domain === a.domain && o.key === a.key) === i);
  if (!unique.length) return [{ link: { id, domain: '?', key: id }, invalid: 'the bitlink has no readable address' }];
  const first = `${unique[0]!.domain}/${unique[0]!.key}`;
  return unique.map((a, i) => ({
    link: {
      id: i === 0 ? b.id : `${b.id} ${a.domain}/${a.key}`,
      domain: a.domain,
      key: a.key,
      url: b.long_url,
      title: b.title || null,
      archived: !!b.archived,
      createdAt: b.created_at ?? null,
      tags: (b.tags ?? []).map((name) => ({ id: name, name })),
      comments: i === 0 ? null : `Another address of ${first} on Bitly`,
    },
    totalOf: i === 0 ? b.id : undefined,
  }));
}


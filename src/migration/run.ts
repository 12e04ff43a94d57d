/**
 * `waymark import api`: copies a workspace from a service that answers the published API into a
 * workspace of this installation, in order (domains, tags, folders, links, customers, then with
 * `events` the clicks, leads and sales), printing progress as it goes.
 *
 * Links keep their keys; their domain follows the domain plan (domain-plan.ts): the source's own
 * domains come along, a shared default domain (`dub.sh`, another instance's short domain) becomes
 * this installation's short domain, `--domain-map` decides where it says. Events follow their links.
 *
 * Resumable without a state table: every copy is idempotent (resources by natural key, events by
 * id, target.ts and events.ts), so an interrupted run is simply run again; it reads the source
 * again from the start, maps what is already copied and writes only what is missing. A busy
 * SQLite file is waited out (busy.ts). With `dryRun` everything is read and judged, nothing written.
 * Events go through the event log (events.ts): when this returns, its clicks, leads and sales are
 * in analytics and counted on their links.
 *
 * @example
 * const summary = await runApiImport({ database, config, workspace, source: { baseUrl, token }, events: true, progress: console.error });
 */
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { foldClicksLeftUnfolded } from '../events/index.js';
import { openImportEventLog, type ImportEventLog } from './event-log.js';
import { createSource, SourceError, type SourceOptions } from './source.js';
import { createTarget, SourceLink, type CopyOutcome, type Target } from './target.js';
import { createEventCopier, type CopiedKind } from './events.js';
import { createMigrationStore } from './store.js';
import { busyRetry, type Retry } from './busy.js';
import { createDomainPlan, type DomainPlan } from './domain-plan.js';
import { createTally, type ImportSummary, type Phase, type Tally } from './tally.js';
import type { Rejection, RejectionReport } from './report.js';

export interface ApiImportOptions {
  database: OpenDatabase;
  config: Config;
  workspace: WorkspaceRow;
  source: SourceOptions;
  /** Also clicks, leads and sales. */
  events?: boolean;
  /**
   * The event log to write them through (a running app's `ctx.events` and `ctx.conversions`);
   * absent, the import opens the installation's own for the run (event-log.ts).
   */
  eventLog?: ImportEventLog;
  /** `FROM → TO`: links on FROM are created on TO with the same key (domain-plan.ts). */
  domainMap?: ReadonlyMap<string, string>;
  /** Read and judge everything, write nothing. */
  dryRun?: boolean;
  /** Where each rejected item is written (`--report`). */
  report?: RejectionReport;
  /** One line per page and per phase (the CLI writes them to stderr). */
  progress?: (line: string) => void;
  now?: () => number;
  /** Longest wait for a busy database per write (default 10 minutes). */
  maxBusyWaitMs?: number;
}

const EVENT_KINDS: { param: 'clicks' | 'leads' | 'sales'; kind: CopiedKind }[] = [
  { param: 'clicks', kind: 'click' },
  { param: 'leads', kind: 'lead' },
  { param: 'sales', kind: 'sale' },
];

type Params = Record<string, string | number | boolean | undefined>;

export async function runApiImport(options: ApiImportOptions): Promise<ImportSummary> {
  if (!options.events || options.eventLog) return importWorkspace(options, options.eventLog);
  // Opened first: an event file another process holds stops the run before anything is copied.
  const opened = await openImportEventLog(options.database, options.config, options.progress);
  try {
    return await importWorkspace(options, opened);
  } finally {
    await opened.close();
  }
}

async function importWorkspace(options: ApiImportOptions, eventLog: ImportEventLog | undefined): Promise<ImportSummary> {
  const progress = options.progress ?? (() => {});
  const clock = options.now ?? Date.now;
  const source = createSource({ ...options.source, onWait: (reason, ms) => progress(`waiting ${(ms / 1000).toFixed(1)} s (${reason})`) });
  const target = await createTarget({ database: options.database, config: options.config, workspace: options.workspace, now: options.now, dryRun: options.dryRun });
  const store = createMigrationStore(options.database.db);
  const retry = busyRetry((ms) => progress(`database busy: waiting ${ms} ms`), { maxWaitMs: options.maxBusyWaitMs });
  const tally = createTally({ dryRun: options.dryRun, report: options.report, progress });

  /** Every item of the lists, read page by page. */
  async function* itemsOf(lists: { path: string; params: Params; size: number }[]): AsyncGenerator<unknown[]> {
    for (const list of lists) {
      for await (const { items } of source.pages<unknown>(list.path, list.params, { sizeParam: 'pageSize', size: list.size })) yield items;
    }
  }

  // Domains first, whole (a workspace has few): the plan needs to know which are the source's own.
  const sourceDomains: unknown[] = [];
  // `archived=true` lists the archived domains only (as Waymark answers it): both lists.
  for await (const items of itemsOf([false, true].map((archived) => ({ path: '/domains', params: { archived }, size: 50 })))) sourceDomains.push(...items);
  const plan = createDomainPlan({
    map: options.domainMap ?? new Map(),
    own: sourceDomains.map((d) => String((d as { slug?: unknown }).slug ?? '')).filter(Boolean),
    shortDomain: options.config.shortDomain,
  });
  const copy = phaseCopier({ tally, retry, progress, clock });
  const mapped = sourceDomains.filter((d) => typeof (d as { slug?: unknown }).slug === 'string' && !plan.copies((d as { slug: string }).slug));
  for (const d of mapped) {
    const slug = (d as { slug: string }).slug;
    tally.summary.mappedDomains.push({ from: slug, to: plan.target(slug) });
  }
  await copy('domains', once(sourceDomains.filter((d) => !mapped.includes(d))), (d) => target.domain(d));
  await assertMapTargets(plan, target, options.config, options.workspace);

  const tagIds = new Map<string, string>();
  await copy('tags', itemsOf([{ path: '/tags', params: {}, size: 100 }]), (t) => target.tag(t), (t, id) => tagIds.set((t as { id: string }).id, id));
  const folderIds = new Map<string, string>();
  await copy('folders', itemsOf([{ path: '/folders', params: {}, size: 50 }]), (f) => target.folder(f), (f, id) => folderIds.set((f as { id: string }).id, id));

  // Without a folder the list holds the links outside folders only (as published): each folder's too.
  const linkLists = [undefined, ...folderIds.keys()].map((folderId) => ({ path: '/links', params: { showArchived: true, sortBy: 'createdAt', sortOrder: 'asc', folderId }, size: 100 }));
  const disabledLinks: string[] = [];
  await copy('links', itemsOf(linkLists), (l) => {
    const domain = (l as { domain?: unknown }).domain;
    return target.link(l, { tags: tagIds, folders: folderIds }, { domain: typeof domain === 'string' ? plan.target(domain) : '' });
  }, (l) => {
    const link = SourceLink.parse(l);
    plan.noteMove(link.domain, plan.target(link.domain));
    if (link.disabledAt) disabledLinks.push(link.id);
  });

  const customerIds = new Map<string, string>();
  await copy('customers', itemsOf([{ path: '/customers', params: { sortBy: 'createdAt', sortOrder: 'asc' }, size: 100 }]), (c) => target.customer(c), (c, id) => {
    const src = c as { id: string; externalId?: string | null };
    customerIds.set(src.id, id);
    if (src.externalId) customerIds.set(`ext:${src.externalId}`, id);
  });

  if (options.events) {
    const links = new Map(await retry(() => store.linksByDomainKey(target.workspaceId)));
    for (const [key, id] of target.plannedLinks()) links.set(key, id);
    if (!eventLog) throw new Error('events are copied through an event log');
    // What an earlier version's SQLite click fold left uncounted is counted (and its watermark
    // cleared) before copied clicks arrive, so a later start cannot count them again.
    if (!options.dryRun) await retry(() => foldClicksLeftUnfolded(options.database));
    const copyPage = createEventCopier({
      database: options.database,
      log: eventLog.log,
      conversions: eventLog.conversions,
      store,
      workspaceId: target.workspaceId,
      links,
      customers: customerIds,
      domainOf: plan.target,
      dryRun: options.dryRun,
      retry,
    });
    const counts = tally.events();
    // The event list leaves out links in folders unless one is asked for, and disabled links
    // unless named: the workspace, each folder, each disabled link. An event read twice is skipped by id.
    const scopes: Params[] = [{}, ...[...folderIds.keys()].map((folderId) => ({ folderId })), ...disabledLinks.map((linkId) => ({ linkId }))];
    for (const { param, kind } of EVENT_KINDS) {
      const count = counts[param];
      const started = clock();
      for (const scope of scopes) {
        const pages = source.pages<unknown>('/events', { event: param, interval: 'all', sortOrder: 'asc', sortBy: 'timestamp', ...scope }, { sizeParam: 'limit', size: 1000 });
        for await (const { items } of pages) {
          const r = await copyPage(kind, items);
          count.written += r.written;
          count.skipped += r.skipped;
          for (const rejected of r.rejected) tally.reject({ kind, ...rejected });
          progress(`${param}: ${count.written} copied, ${count.skipped} already there, ${count.rejected} rejected (${rate(count.written + count.skipped + count.rejected, clock() - started)}/s)`);
        }
      }
    }
    // The links' counters too, before this returns (a store that counts in the append has done so).
    if (!options.dryRun) await eventLog.log.fold();
  }
  return tally.finish(plan.moves());
}

/**
 * Copies every item of a stream of pages with `copy` (run again while the database is busy),
 * counting outcomes, reporting rejections and printing a line per page.
 */
export function phaseCopier(deps: { tally: Tally; retry: Retry; progress: (line: string) => void; clock: () => number }) {
  return async function copyPhase(name: Phase, pages: AsyncIterable<unknown[]>, copy: (item: unknown) => Promise<CopyOutcome>, onCopied?: (item: unknown, id: string) => void): Promise<void> {
    const count = deps.tally.summary[name];
    const started = deps.clock();
    for await (const items of pages) {
      for (const item of items) {
        const outcome = await deps.retry(() => copy(item));
        if (outcome.result === 'rejected') {
          deps.tally.reject({ kind: KIND_OF[name], sourceId: sourceIdOf(item), item: describe(item), reason: outcome.reason });
        } else {
          deps.tally.count(name, outcome.result);
          onCopied?.(item, outcome.id);
        }
      }
      deps.progress(`${name}: ${count.created} copied, ${count.existing} already there, ${count.rejected} rejected (${rate(count.created + count.existing + count.rejected, deps.clock() - started)}/s)`);
    }
  };
}

/** Each `--domain-map` target must be this installation's short domain or a domain of the workspace. */
export async function assertMapTargets(plan: DomainPlan, target: Target, config: Config, workspace: WorkspaceRow): Promise<void> {
  for (const to of plan.mappedTargets()) {
    if (to === config.shortDomain || (await target.hasDomain(to))) continue;
    throw new SourceError(
      `--domain-map: ${to} is neither this installation's short domain (${config.shortDomain}) nor a domain of workspace ${workspace.slug}; add it first (POST /domains, or the dashboard's domains page)`,
    );
  }
}

const KIND_OF: Record<Phase, Rejection['kind']> = { domains: 'domain', tags: 'tag', folders: 'folder', links: 'link', customers: 'customer' };

/** A short label of a source item: `domain/key` for a link, else its slug, name or external id. */
function describe(item: unknown): string {
  const o = item as Record<string, unknown>;
  if (typeof o.domain === 'string' && typeof o.key === 'string') return `${o.domain}/${o.key}`;
  return String(o.slug ?? o.externalId ?? o.name ?? o.id ?? '?');
}

function sourceIdOf(item: unknown): string {
  const o = item as Record<string, unknown>;
  return String(o.id ?? o.slug ?? '?');
}

const rate = (n: number, ms: number) => Math.round((n * 1000) / Math.max(ms, 1));

/** A list as a stream of one page, for the phase copier. */
export async function* once<T>(items: T[]): AsyncGenerator<T[]> {
  yield items;
}

export { SourceError };
export type { ImportSummary };

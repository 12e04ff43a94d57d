/**
 * `waymark import api`: copies a workspace from a service that answers the published API into a
 * workspace of this installation, in order (domains, tags, folders, links, customers, then with
 * `events` the clicks, leads and sales), printing progress as it goes.
 *
 * Resumable without a state table: every copy is idempotent (resources by natural key, events by
 * id, target.ts and events.ts), so an interrupted run is simply run again; it reads the source
 * again from the start, maps what is already copied and writes only what is missing.
 *
 * @example
 * const summary = await runApiImport({ database, config, workspace, source: { baseUrl, token }, events: true, progress: console.error });
 */
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { createSqlEventStore } from '../events/sql/store.js';
import { createSource, SourceError, type SourceOptions } from './source.js';
import { createTarget, SourceLink, type CopyOutcome } from './target.js';
import { createEventCopier, type CopiedKind } from './events.js';
import { createMigrationStore } from './store.js';
import { retryBusy } from './busy.js';

export interface ApiImportOptions {
  database: OpenDatabase;
  config: Config;
  workspace: WorkspaceRow;
  source: SourceOptions;
  /** Also clicks, leads and sales. */
  events?: boolean;
  /** One line per page and per phase (the CLI writes them to stderr). */
  progress?: (line: string) => void;
  now?: () => number;
}

export interface PhaseCount {
  created: number;
  existing: number;
  rejected: number;
}

export interface EventCount {
  written: number;
  skipped: number;
  unattributed: number;
}

export interface ApiImportSummary {
  domains: PhaseCount;
  tags: PhaseCount;
  folders: PhaseCount;
  links: PhaseCount;
  customers: PhaseCount;
  events?: Record<'clicks' | 'leads' | 'sales', EventCount>;
  /** The first rejections, with their reasons. */
  rejections: string[];
}

const KINDS: { param: 'clicks' | 'leads' | 'sales'; kind: CopiedKind }[] = [
  { param: 'clicks', kind: 'click' },
  { param: 'leads', kind: 'lead' },
  { param: 'sales', kind: 'sale' },
];
const MAX_REJECTIONS_KEPT = 50;

export async function runApiImport(options: ApiImportOptions): Promise<ApiImportSummary> {
  const progress = options.progress ?? (() => {});
  const clock = options.now ?? Date.now;
  const source = createSource({ ...options.source, onWait: (reason, ms) => progress(`waiting ${(ms / 1000).toFixed(1)} s (${reason})`) });
  const target = await createTarget({ database: options.database, config: options.config, workspace: options.workspace, now: options.now });
  const store = createMigrationStore(options.database.db);
  const summary: ApiImportSummary = { domains: zero(), tags: zero(), folders: zero(), links: zero(), customers: zero(), rejections: [] };

  /** Copies every item of a list with `copy`, counting outcomes and printing a line per page. */
  async function phase(name: keyof Omit<ApiImportSummary, 'events' | 'rejections'>, lists: { path: string; params: Record<string, string | number | boolean | undefined>; size: number }[], copy: (item: unknown) => Promise<CopyOutcome>, onCopied?: (item: unknown, id: string) => void) {
    const count = summary[name];
    const started = clock();
    for (const list of lists) {
      for await (const { items } of source.pages<unknown>(list.path, list.params, { sizeParam: 'pageSize', size: list.size })) {
        for (const item of items) {
          const outcome = await retryBusy(options.database.dialect, () => copy(item));
          if (outcome.result === 'rejected') {
            count.rejected++;
            const label = describe(item);
            if (summary.rejections.length < MAX_REJECTIONS_KEPT) summary.rejections.push(`${name} ${label}: ${outcome.reason}`);
            progress(`${name}: rejected ${label}: ${outcome.reason}`);
          } else {
            count[outcome.result]++;
            onCopied?.(item, outcome.id);
          }
        }
        progress(`${name}: ${count.created} copied, ${count.existing} already there, ${count.rejected} rejected (${rate(count.created + count.existing + count.rejected, clock() - started)}/s)`);
      }
    }
  }

  // `archived=true` lists the archived domains only (as Waymark answers it): both lists.
  await phase('domains', [false, true].map((archived) => ({ path: '/domains', params: { archived }, size: 50 })), (d) => target.domain(d));
  const tagIds = new Map<string, string>();
  await phase('tags', [{ path: '/tags', params: {}, size: 100 }], (t) => target.tag(t), (t, id) => tagIds.set((t as { id: string }).id, id));
  const folderIds = new Map<string, string>();
  await phase('folders', [{ path: '/folders', params: {}, size: 50 }], (f) => target.folder(f), (f, id) => folderIds.set((f as { id: string }).id, id));

  // Without a folder the list holds the links outside folders only (as published): each folder's too.
  const linkLists = [undefined, ...folderIds.keys()].map((folderId) => ({ path: '/links', params: { showArchived: true, sortBy: 'createdAt', sortOrder: 'asc', folderId }, size: 100 }));
  const disabledLinks: string[] = [];
  await phase('links', linkLists, (l) => target.link(l, { tags: tagIds, folders: folderIds }), (l) => {
    const link = SourceLink.parse(l);
    if (link.disabledAt) disabledLinks.push(link.id);
  });

  const customerIds = new Map<string, string>();
  await phase('customers', [{ path: '/customers', params: { sortBy: 'createdAt', sortOrder: 'asc' }, size: 100 }], (c) => target.customer(c), (c, id) => {
    const src = c as { id: string; externalId?: string | null };
    customerIds.set(src.id, id);
    if (src.externalId) customerIds.set(`ext:${src.externalId}`, id);
  });

  if (options.events) {
    const copy = createEventCopier({
      database: options.database,
      events: createSqlEventStore({ database: options.database }),
      store,
      workspaceId: target.workspaceId,
      links: await store.linksByDomainKey(target.workspaceId),
      customers: customerIds,
    });
    summary.events = { clicks: zeroEvents(), leads: zeroEvents(), sales: zeroEvents() };
    // The event list leaves out links in folders unless one is asked for, and disabled links
    // unless named: the workspace, each folder, each disabled link. An event read twice is skipped by id.
    const scopes: Record<string, string>[] = [{}, ...[...folderIds.keys()].map((folderId) => ({ folderId })), ...disabledLinks.map((linkId) => ({ linkId }))];
    for (const { param, kind } of KINDS) {
      const count = summary.events[param];
      const started = clock();
      for (const scope of scopes) {
        const pages = source.pages<unknown>('/events', { event: param, interval: 'all', sortOrder: 'asc', sortBy: 'timestamp', ...scope }, { sizeParam: 'limit', size: 1000 });
        for await (const { items } of pages) {
          const r = await copy(kind, items);
          count.written += r.written;
          count.skipped += r.skipped;
          count.unattributed += r.unattributed;
          progress(`${param}: ${count.written} copied, ${count.skipped} already there, ${count.unattributed} without a copied link (${rate(count.written + count.skipped + count.unattributed, clock() - started)}/s)`);
        }
      }
    }
  }
  return summary;
}

/** A short label of a source item for a rejection line. */
function describe(item: unknown): string {
  const o = item as Record<string, unknown>;
  if (typeof o.domain === 'string' && typeof o.key === 'string') return `${o.domain}/${o.key}`;
  return String(o.slug ?? o.name ?? o.externalId ?? o.id ?? '?');
}

const zero = (): PhaseCount => ({ created: 0, existing: 0, rejected: 0 });
const zeroEvents = (): EventCount => ({ written: 0, skipped: 0, unattributed: 0 });
const rate = (n: number, ms: number) => Math.round((n * 1000) / Math.max(ms, 1));

export { SourceError };

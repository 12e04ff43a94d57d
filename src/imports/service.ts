/**
 * Link imports: a stream of link inputs (from a CSV file here; from another service's API for the
 * migration) is judged and written in batches of a few hundred rows per transaction, with the
 * tags the rows name created first and their unknown domains added unverified. Memory does not
 * grow with the input: a batch at a time, and only the first `maxItems` per-row items are kept
 * (`onItem` sees every one).
 *
 * @example
 * const report = await importer.importLinks(workspace, rowsOf(file), { dryRun: true });
 * // { counts: { rows: 3, created: 2, skipped: 1, rejected: 0 }, items: [...], ... }
 */
import type { Readable } from 'node:stream';
import { ApiError } from '../http/errors.js';
import type { DomainService } from '../domains/service.js';
import type { LinkService } from '../links/service.js';
import type { ImportItem, ImportOutcome } from '../links/import-batch.js';
import { normaliseDomain } from '../links/keys.js';
import type { TagService } from '../tags/service.js';
import { CreateTagBody } from '../tags/schema.js';
import { CreateDomainBody } from '../domains/schema.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { limitReachedMessage } from '../workspaces/quota.js';
import { readCsvRows } from './parse.js';
import { resolveColumns, type LayoutName } from './layouts.js';
import { toLinkInput } from './rows.js';

/** One input row: its line in the file (or position in the source), and the link or why it cannot be one. */
export type SourceRow = { line: number } & ({ item: ImportItem } | { error: string; code?: string });

export type ImportRowItem = { line: number } & ImportOutcome;

export interface ImportReport {
  dryRun: boolean;
  counts: { rows: number; created: number; skipped: number; rejected: number };
  tagsCreated: string[];
  domainsCreated: string[];
  /** Per-row outcomes, in input order, up to `maxItems`; `truncated` when there were more. */
  items: ImportRowItem[];
  truncated: boolean;
}

export interface ImportOptions {
  dryRun: boolean;
  /** Rows per transaction (default 250). */
  batchSize?: number;
  /** Per-row items kept in the report (default 1,000). */
  maxItems?: number;
  /** Sees every row's outcome as it is decided (the CLI prints the rejected ones). */
  onItem?: (item: ImportRowItem) => void;
  /** Who is recorded as the links' creator (the API key); null from the CLI. */
  userId?: string | null;
}

export interface ImportDeps {
  links: Pick<LinkService, 'importBatch'>;
  tags: Pick<TagService, 'create' | 'findTagsByNames' | 'countTags'>;
  domains: Pick<DomainService, 'create' | 'findDomain' | 'listWorkspaceDomainSlugs'>;
  shortDomain: string;
}

const DEFAULT_BATCH = 250;
const DEFAULT_MAX_ITEMS = 1_000;

export function createImportService(deps: ImportDeps) {
  /**
   * Makes sure the tags and domains a batch names exist (or, in a dry run, records that they
   * would be created). Returns why rows naming a tag or domain that cannot be created fail: the
   * plan's limit message; other refusals are left to the link rules, which word them as the API does.
   */
  async function prepareNames(ws: WorkspaceRow, rows: { item: ImportItem }[], state: RunState, dryRun: boolean): Promise<Map<string, ApiError>> {
    const refused = new Map<string, ApiError>();
    const tagNames = new Map<string, string>();
    const domains = new Set<string>();
    for (const { item } of rows) {
      const input = item.input as { tagNames?: unknown; domain?: unknown };
      if (Array.isArray(input.tagNames)) for (const n of input.tagNames) if (typeof n === 'string') tagNames.set(n.toLowerCase(), n);
      const domain = typeof input.domain === 'string' ? normaliseDomain(input.domain) : null;
      if (domain && domain !== deps.shortDomain) domains.add(domain);
    }
    const known = new Set((await deps.tags.findTagsByNames(ws.id, [...tagNames.values()])).map((t) => t.name_key));
    for (const [nameKey, name] of tagNames) {
      if (known.has(nameKey) || state.assumedTags.has(nameKey) || !CreateTagBody.safeParse({ name }).success) continue;
      if (dryRun) {
        const count = (await deps.tags.countTags(ws.id)) + state.assumedTags.size;
        if (count >= Number(ws.tags_limit)) refused.set(`tag:${nameKey}`, new ApiError('forbidden', limitReachedMessage('tags', Number(ws.tags_limit), ws.plan)));
        else {
          state.assumedTags.add(nameKey);
          state.tagsCreated.push(name);
        }
        continue;
      }
      try {
        await deps.tags.create(ws, { name });
        state.tagsCreated.push(name);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.code === 'forbidden') refused.set(`tag:${nameKey}`, err);
      }
    }
    for (const slug of domains) {
      if (state.assumedDomains.has(slug) || (await deps.domains.findDomain(ws.id, slug))) continue;
      const body = CreateDomainBody.safeParse({ slug });
      // A slug the domain rules refuse is left to the link rules, which refuse its rows with the API's message.
      if (!body.success) continue;
      if (dryRun) {
        const count = (await deps.domains.listWorkspaceDomainSlugs(ws.id)).length + state.assumedDomains.size;
        if (count >= Number(ws.domains_limit)) refused.set(`domain:${slug}`, limitError(ws));
        else {
          state.assumedDomains.add(slug);
          state.domainsCreated.push(slug);
        }
        continue;
      }
      try {
        await deps.domains.create(ws, body.data, { imported: true });
        state.domainsCreated.push(slug);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.code === 'forbidden') refused.set(`domain:${slug}`, err);
      }
    }
    return refused;
  }

  function limitError(ws: WorkspaceRow): ApiError {
    // The same wording the domain service gives, without creating anything.
    return new ApiError('forbidden', limitReachedMessage('domains', Number(ws.domains_limit), ws.plan));
  }

  /** Why a row names a tag or domain that could not be created, if it does. */
  function refusalOf(item: ImportItem, refused: Map<string, ApiError>): ApiError | undefined {
    if (!refused.size) return undefined;
    const input = item.input as { tagNames?: unknown; domain?: unknown };
    const domain = typeof input.domain === 'string' ? normaliseDomain(input.domain) : null;
    if (domain && refused.has(`domain:${domain}`)) return refused.get(`domain:${domain}`);
    if (Array.isArray(input.tagNames)) for (const n of input.tagNames) if (typeof n === 'string' && refused.has(`tag:${n.toLowerCase()}`)) return refused.get(`tag:${n.toLowerCase()}`);
    return undefined;
  }

  /**
   * Imports link inputs: the reusable core (CSV here, the API migration elsewhere). Rows are
   * written in batches; each batch's tags and domains are created first.
   */
  async function importLinks(ws: WorkspaceRow, source: AsyncIterable<SourceRow>, options: ImportOptions): Promise<ImportReport> {
    const batchSize = options.batchSize ?? DEFAULT_BATCH;
    const maxItems = options.maxItems ?? DEFAULT_MAX_ITEMS;
    const report: ImportReport = { dryRun: options.dryRun, counts: { rows: 0, created: 0, skipped: 0, rejected: 0 }, tagsCreated: [], domainsCreated: [], items: [], truncated: false };
    const state: RunState = { seen: new Set(), assumedTags: new Set(), assumedDomains: new Set(), tagsCreated: report.tagsCreated, domainsCreated: report.domainsCreated };
    // A copy: the importer advances links_usage as it writes, and the caller's row must stay as loaded.
    const caller = { workspaceId: ws.id, workspace: { ...ws }, userId: options.userId ?? null };

    const record = (item: ImportRowItem) => {
      report.counts.rows++;
      report.counts[item.status]++;
      options.onItem?.(item);
      if (report.items.length < maxItems) report.items.push(item);
      else report.truncated = true;
    };

    let pending: SourceRow[] = [];
    const flush = async () => {
      const rows = pending;
      pending = [];
      const good = rows.filter((r): r is SourceRow & { item: ImportItem } => 'item' in r);
      const refused = await prepareNames(ws, good, state, options.dryRun);
      const judged = good.filter((r) => !refusalOf(r.item, refused));
      const outcomes = await deps.links.importBatch(caller, judged.map((r) => r.item), {
        dryRun: options.dryRun,
        seen: state.seen,
        assume: { domains: state.assumedDomains, tagNameKeys: state.assumedTags },
      });
      const byRow = new Map(judged.map((r, i) => [r, outcomes[i]!]));
      for (const r of rows) {
        if (!('item' in r)) {
          record({ line: r.line, status: 'rejected', error: r.error, code: r.code ?? 'unprocessable_entity' });
          continue;
        }
        const refusal = refusalOf(r.item, refused);
        record({ line: r.line, ...(refusal ? { status: 'rejected', error: refusal.message, code: refusal.code } : byRow.get(r)!) });
      }
      // A real import finds earlier batches' links in the database; only a dry run must remember them.
      if (!options.dryRun) state.seen.clear();
    };
    for await (const row of source) {
      pending.push(row);
      if (pending.length >= batchSize) await flush();
    }
    if (pending.length) await flush();
    return report;
  }

  return {
    importLinks,

    /**
     * Imports a CSV file of links. The header row picks the layout (layouts.ts); `mapping`
     * (`{field: header}`) overrides it. Line numbers count the header as line 1.
     */
    async importCsv(ws: WorkspaceRow, csv: Readable | AsyncIterable<Buffer | string>, options: ImportOptions & { mapping?: Record<string, string> }): Promise<ImportReport & { layout: LayoutName }> {
      let layout: LayoutName = 'generic';
      async function* rows(): AsyncGenerator<SourceRow> {
        let columns: ReturnType<typeof resolveColumns>['columns'] | undefined;
        for await (const { record, line } of readCsvRows(csv)) {
          if (!columns) {
            ({ layout, columns } = resolveColumns(record, options.mapping ?? {}));
            continue;
          }
          const parsed = toLinkInput(record, columns);
          yield 'error' in parsed ? { line, error: parsed.error } : { line, item: { input: parsed.input, createdAt: parsed.createdAt } };
        }
        if (!columns) throw new ApiError('unprocessable_entity', 'The CSV file is empty: it needs a header row and one row per link.');
      }
      const report = await importLinks(ws, rows(), options);
      return { layout, ...report };
    },
  };
}

interface RunState {
  seen: Set<string>;
  assumedTags: Set<string>;
  assumedDomains: Set<string>;
  tagsCreated: string[];
  domainsCreated: string[];
}

export type ImportService = ReturnType<typeof createImportService>;

/**
 * Link imports: a stream of link inputs (a CSV file here, any parsed source elsewhere) is judged
 * in batches of a few hundred rows without writing; a real run then creates the tags and domains
 * (unverified) that the accepted rows need (names.ts) and writes the rows, 50 to a transaction.
 * The work yields to the event loop every few milliseconds (time-slice.ts), so redirects are
 * answered while a file imports. Memory does not grow with the input: a batch at a time, and only
 * the first `maxItems` per-row items are kept (`onItem` sees every one).
 *
 * @example
 * const report = await importer.importLinks(workspace, rowsOf(file), { dryRun: true });
 * // { counts: { rows: 3, created: 2, skipped: 1, rejected: 0 }, items: [...], ... }
 */
import type { Change, Who } from '../audit/record.js';
import type { Readable } from 'node:stream';
import { ApiError } from '../http/errors.js';
import type { LinkService } from '../links/service.js';
import { isAccepted, type AlsoOnInsert, type ImportItem, type ImportOutcome } from '../links/import-batch.js';
import type { JobWriter } from './jobs.js';
import { slices } from '../time-slice.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { createImportNames, type ImportNameDeps } from './names.js';
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
  /** Rows per batch: judged together, then written (default 250). */
  batchSize?: number;
  /** Per-row items kept in the report (default 1,000). */
  maxItems?: number;
  /** Sees every row's outcome as it is decided (the CLI prints the rejected ones). */
  onItem?: (item: ImportRowItem) => void;
  /** Who is recorded as the links' creator (the API key); null from the CLI. */
  userId?: string | null;
  /**
   * The most rows read (requests: IMPORT_MAX_ROWS). The first `maxRows` are imported, then the
   * import fails with 422 naming the limit. Unlimited by default (the CLI).
   */
  maxRows?: number;
  /**
   * Stops the import once aborted (the client went away): nothing is judged or written after
   * that; the transaction being written (50 rows) completes, and what was written before stays.
   */
  signal?: AbortSignal;
  /**
   * The import job this run writes for (jobs.ts): its links are recorded in their transactions and
   * its progress after each batch. `resume`: the rows up to `afterLine` are written already (their
   * counts given); rows after it that the job created before are counted as created, not skipped.
   */
  job?: { id: string; resume?: { afterLine: number; counts: ImportReport['counts'] } };
}

/** The limits of an import sent over HTTP (the API, the dashboard): IMPORT_MAX_ROWS, IMPORT_MAX_BYTES. */
export interface ImportRequestLimits {
  maxRows: number;
  maxBytes: number;
}

/** The options of a CSV import: those of any import, and the column mapping (`{field: header}`). */
export type CsvImportOptions = ImportOptions & { mapping?: Record<string, string> };

/**
 * What the HTTP routes need of an importer: the service in process, or the import thread
 * (import-thread.ts), which runs the same service on a thread of its own (no `onItem` there).
 */
export interface CsvImporter {
  /** `who`: recorded as the import's one audit entry by the app's importer (imports/module.ts); the others ignore it. */
  importCsv(ws: WorkspaceRow, csv: AsyncIterable<Buffer | string>, options: Omit<CsvImportOptions, 'onItem'>, who?: Who): Promise<ImportReport & { layout: LayoutName }>;
  readonly requestLimits: ImportRequestLimits;
}

export interface ImportDeps extends ImportNameDeps {
  links: Pick<LinkService, 'judgeImport' | 'insertImport'>;
  /** The job writes of a run with `job` (the import's own connection). */
  jobWriter?: (jobId: string) => JobWriter;
  /** Caps of imports sent over HTTP (unlimited when not given: the CLI). */
  requestLimits?: ImportRequestLimits;
}

const DEFAULT_BATCH = 250;
const DEFAULT_MAX_ITEMS = 1_000;

/** The import stopped because its client went away (`ImportOptions.signal`). */
export class ImportAborted extends ApiError {
  constructor() {
    super('bad_request', 'The import stopped: the client closed the connection before it ended. What was written before stays; importing the file again skips it.');
  }
}

export function createImportService(deps: ImportDeps) {
  /**
   * Imports link inputs: the reusable core (CSV here, any parsed source elsewhere). Rows are
   * judged a batch at a time without writing; a real run then creates the tags and domains the
   * accepted rows need and writes them. A dry run is the judging alone, so it answers the same.
   */
  async function importLinks(ws: WorkspaceRow, source: AsyncIterable<SourceRow>, options: ImportOptions, layoutOf: () => string = () => 'generic'): Promise<ImportReport> {
    const batchSize = options.batchSize ?? DEFAULT_BATCH;
    const maxItems = options.maxItems ?? DEFAULT_MAX_ITEMS;
    const maxRows = options.maxRows ?? Infinity;
    const report: ImportReport = { dryRun: options.dryRun, counts: { rows: 0, created: 0, skipped: 0, rejected: 0 }, tagsCreated: [], domainsCreated: [], items: [], truncated: false };
    const resume = options.job?.resume;
    if (resume) report.counts = { ...resume.counts };
    const writer = options.job && !options.dryRun ? deps.jobWriter?.(options.job.id) : undefined;
    const recordLinks: AlsoOnInsert | undefined = writer && ((trx, ids) => writer.linksCreated(trx, ids));
    const names = createImportNames(deps, ws, report);
    /** Identities met so far (import-batch.ts); a real run forgets them after each batch, which finds them in the database. */
    const seen = new Set<string>();
    // A copy: the importer advances links_usage as it writes, and the caller's row must stay as loaded.
    const caller = { workspaceId: ws.id, workspace: { ...ws }, userId: options.userId ?? null };
    const stopIfAborted = () => {
      const { signal } = options;
      if (signal?.aborted) throw signal.reason instanceof ApiError ? signal.reason : new ImportAborted();
    };

    const record = (item: ImportRowItem) => {
      report.counts.rows++;
      report.counts[item.status]++;
      options.onItem?.(item);
      if (report.items.length < maxItems) report.items.push(item);
      else report.truncated = true;
    };

    let pending: SourceRow[] = [];
    let read = 0;
    const flush = async () => {
      const rows = pending;
      pending = [];
      stopIfAborted();
      const good = rows.filter((r): r is SourceRow & { item: ImportItem } => 'item' in r);
      const items = good.map((r) => r.item);
      const judged = await deps.links.judgeImport(caller, items, { seen, creatable: await names.creatableIn(items), quota: names.quota });
      // A resume meets again the rows of the batch it was writing when it stopped: they are its own.
      const own = resume && writer ? await writer.own(judged.flatMap((j) => (j.status === 'skipped' && j.id ? [j.id] : []))) : undefined;
      if (own?.size) for (const [i, j] of judged.entries()) if (j.status === 'skipped' && j.id && own.has(j.id)) judged[i] = { ...j, status: 'created' };
      const accepted = judged.filter(isAccepted);
      let outcomeOf: (i: number) => ImportOutcome | undefined;
      if (options.dryRun) {
        caller.workspace.links_usage = Number(caller.workspace.links_usage) + accepted.length;
        outcomeOf = (i) => {
          const j = judged[i]!;
          return isAccepted(j) ? { status: 'created', id: null, domain: j.write.row.domain, key: j.write.row.key } : j;
        };
      } else {
        stopIfAborted();
        const { tagIds, refusalOf } = await names.create(accepted);
        const writable = accepted.filter((a) => !refusalOf(a.needs));
        stopIfAborted();
        const inserted = await deps.links.insertImport(caller, writable, tagIds, options.signal, recordLinks);
        const written = new Map(writable.map((a, i) => [a, inserted[i]]));
        outcomeOf = (i) => {
          const j = judged[i]!;
          if (!isAccepted(j)) return j;
          const refusal = refusalOf(j.needs);
          return refusal ? { status: 'rejected', error: refusal.message, code: refusal.code } : written.get(j);
        };
      }
      let at = 0;
      let last: SourceRow | undefined;
      for (const r of rows) {
        const outcome = 'item' in r ? outcomeOf(at++) : { status: 'rejected' as const, error: r.error, code: r.code ?? 'unprocessable_entity' };
        // Stopped between two transactions: the rows up to the first one not written are counted, no further.
        if (!outcome) break;
        record({ line: r.line, ...outcome });
        last = r;
      }
      // A real import finds earlier batches' links in the database; only a dry run must remember them.
      if (!options.dryRun) seen.clear();
      if (writer && last) await writer.progress(report.counts, last.line, layoutOf());
      stopIfAborted();
    };
    for await (const row of source) {
      stopIfAborted();
      if (resume && row.line <= resume.afterLine) {
        read++;
        continue;
      }
      if (++read > maxRows) {
        if (pending.length) await flush();
        throw new ApiError(
          'unprocessable_entity',
          `The file has more than ${maxRows.toLocaleString('en')} rows, the most one import reads: split it and import the parts. ` +
            `The first ${maxRows.toLocaleString('en')} rows were ${options.dryRun ? 'checked' : 'imported (importing them again skips them)'}; the rest was not read.`,
        );
      }
      pending.push(row);
      if (pending.length >= batchSize) await flush();
    }
    if (pending.length) await flush();
    return report;
  }

  return {
    importLinks,
    /** The caps of an import over HTTP (routes apply them). */
    requestLimits: deps.requestLimits ?? { maxRows: Infinity, maxBytes: Infinity },

    /**
     * Imports a CSV file of links. The header row picks the layout (layouts.ts); `mapping`
     * (`{field: header}`) overrides it. Line numbers count the header as line 1.
     */
    async importCsv(ws: WorkspaceRow, csv: Readable | AsyncIterable<Buffer | string>, options: CsvImportOptions): Promise<ImportReport & { layout: LayoutName }> {
      let layout: LayoutName = 'generic';
      async function* rows(): AsyncGenerator<SourceRow> {
        let columns: ReturnType<typeof resolveColumns>['columns'] | undefined;
        for await (const { record, line } of readCsvRows(csv)) {
          await slices.pause();
          if (!columns) {
            ({ layout, columns } = resolveColumns(record, options.mapping ?? {}));
            continue;
          }
          const parsed = toLinkInput(record, columns);
          yield 'error' in parsed ? { line, error: parsed.error } : { line, item: { input: parsed.input, createdAt: parsed.createdAt } };
        }
        if (!columns) throw new ApiError('unprocessable_entity', 'The CSV file is empty: it needs a header row and one row per link.');
      }
      const report = await importLinks(ws, rows(), options, () => layout);
      return { layout, ...report };
    },
  };
}

export type ImportService = ReturnType<typeof createImportService>;

/** The audit entry of a finished import: its counts and what it created besides links. */
export function importEntry(workspaceId: string, report: ImportReport & { layout: string }): Change {
  return {
    workspaceId,
    action: 'links.import',
    targetIds: [],
    changes: { ...report.counts, layout: report.layout, tagsCreated: report.tagsCreated, domainsCreated: report.domainsCreated },
  };
}

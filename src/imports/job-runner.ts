/**
 * Imports as jobs (jobs.ts) for the API, the dashboard and `waymark imports`: `start` records the
 * job, runs the import with it and ends it as completed, failed or interrupted; `resume` runs an
 * interrupted job again from its kept file, after the last line written; `undo` deletes the links
 * the job created. Once its file has arrived whole, an import no longer stops when its client goes
 * away: it runs to the end, and the job says what it did. A heartbeat while it runs tells a live
 * job from one whose process died.
 *
 * @example
 * const { job, report } = await runner.start(ws, meta, (job) => spoolBody(raw, { maxBytes, keepAt: job.spoolPath! }), options, who);
 */
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Who } from '../audit/record.js';
import { recordAlone } from '../audit/module.js';
import type { OpenDatabase } from '../db/open.js';
import { ApiError } from '../http/errors.js';
import type { LinkService } from '../links/service.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import type { LayoutName } from './layouts.js';
import { boundaryOf, multipartField } from './multipart.js';
import type { ImportJobRecord, ImportJobs } from './jobs.js';
import type { CsvImporter, CsvImportOptions, ImportReport } from './service.js';

/** How often a running job says it is alive (a job silent for `staleMs` is interrupted). */
const HEARTBEAT_MS = 5_000;
/** Links deleted per transaction by an undo (POST /links/bulk's cap). */
const UNDO_CHUNK = 100;

export type JobReport = ImportReport & { layout: LayoutName; importId: string };

export interface JobMeta {
  source: 'api' | 'dashboard';
  contentType: string;
  mapping: Record<string, string>;
  createdBy: string | null;
}

export interface RunOptions extends Omit<CsvImportOptions, 'onItem' | 'signal' | 'job' | 'dryRun' | 'mapping'> {
  /** Fires when the client goes away: the import stops only if its file has not arrived whole. */
  clientGone?: AbortSignal;
  /** Called with the job as soon as it is recorded (the API sends its id as a header). */
  onJob?: (job: ImportJobRecord) => void;
}

/** Whether an import's error leaves it resumable (stopped by the server or the client) rather than failed (a limit, a bad file). */
function interruptedBy(err: unknown, clientLeft: boolean): boolean {
  if (clientLeft) return true;
  return !(err instanceof ApiError) || err.status >= 500;
}

export function createJobRunner(deps: { jobs: ImportJobs; importer: CsvImporter; links: Pick<LinkService, 'bulkDelete'>; database: OpenDatabase }) {
  const { jobs, importer } = deps;

  async function run(ws: WorkspaceRow, job: ImportJobRecord, csv: AsyncIterable<Buffer>, options: RunOptions, who: Who | undefined, upload: { complete: boolean }, resume?: { afterLine: number; counts: ImportReport['counts'] }): Promise<JobReport> {
    const stop = new AbortController();
    let clientLeft = false;
    options.clientGone?.addEventListener('abort', () => {
      if (upload.complete) return;
      clientLeft = true;
      stop.abort();
    }, { once: true });
    // Only while the import's batches do not mark the job themselves (a slow upload, a long batch).
    const beat = setInterval(() => void jobs.heartbeat(job.id, HEARTBEAT_MS).catch(() => undefined), HEARTBEAT_MS);
    beat.unref();
    const { clientGone: _c, onJob: _o, ...forwarded } = options;
    try {
      const report = await importer.importCsv(ws, csv, { ...forwarded, dryRun: false, mapping: job.mapping, signal: stop.signal, job: { id: job.id, resume } }, who);
      await jobs.finish(job.id, 'completed', { counts: report.counts, layout: report.layout, uploadComplete: true });
      return { ...report, importId: job.id };
    } catch (err) {
      if (err instanceof ApiError && err.code === 'rate_limit_exceeded' && !resume) await jobs.discard(job.id);
      else {
        const interrupted = interruptedBy(err, clientLeft);
        const message = err instanceof ApiError ? err.message : 'The import stopped: the server could not finish it.';
        await jobs.finish(job.id, interrupted ? 'interrupted' : 'failed', { error: message, uploadComplete: upload.complete });
      }
      throw err;
    } finally {
      clearInterval(beat);
    }
  }

  return {
    jobs,
    importer,

    /**
     * Records a job and runs it: `body` gives the file's bytes, received into the job's file
     * (`job.spoolPath`, spool.ts `keepAt`) and calling `uploaded` once the whole file is in.
     */
    async start(ws: WorkspaceRow, meta: JobMeta, body: (job: ImportJobRecord, uploaded: () => void) => AsyncIterable<Buffer>, options: RunOptions, who?: Who): Promise<JobReport> {
      const job = await jobs.begin(ws.id, meta);
      options.onJob?.(job);
      const upload = { complete: false };
      const uploaded = () => {
        upload.complete = true;
        void jobs.uploaded(job.id).catch(() => undefined);
      };
      return run(ws, job, body(job, uploaded), options, who, upload);
    },

    /** Runs an interrupted job again from its file: rows written before are neither read again nor duplicated. */
    async resume(ws: WorkspaceRow, id: string, options: RunOptions, who?: Who): Promise<JobReport> {
      const job = await jobs.get(ws.id, id);
      if (!job) throw new ApiError('not_found', 'Import not found.');
      if (!job.resumable) {
        throw new ApiError('conflict', job.state === 'interrupted'
          ? 'This import cannot be resumed: its file did not arrive whole. Import the file again (rows already imported are skipped), or undo this import.'
          : `This import is ${job.state}: only an interrupted import can be resumed.`);
      }
      try {
        await access(job.spoolPath!);
      } catch {
        throw new ApiError('conflict', 'This import cannot be resumed: its kept file is gone. Import the file again (rows already imported are skipped), or undo this import.');
      }
      if (!(await jobs.claim(job, 'running'))) throw new ApiError('conflict', 'This import was resumed or undone meanwhile.');
      const file = createReadStream(job.spoolPath!) as AsyncIterable<Buffer>;
      const boundary = /^multipart\/form-data/i.test(job.contentType) ? boundaryOf(job.contentType) : undefined;
      const csv = boundary ? multipartField(file, boundary, 'file') : file;
      return run(ws, job, csv, { ...options, clientGone: undefined }, who, { complete: true }, { afterLine: job.lastLine, counts: job.counts });
    },

    /** Deletes exactly the links the job created (those still there), one audit entry (`links.import_undo`); tags and domains it created stay. */
    async undo(ws: WorkspaceRow, id: string, who?: Who): Promise<ImportJobRecord> {
      const job = await jobs.get(ws.id, id);
      if (!job) throw new ApiError('not_found', 'Import not found.');
      if (job.state === 'running') throw new ApiError('conflict', 'This import is running: undo it once it has ended.');
      if (job.state === 'undone') throw new ApiError('conflict', 'This import was undone already.');
      if (!(await jobs.claim(job, 'undone'))) throw new ApiError('conflict', 'This import was resumed or undone meanwhile.');
      // No entry per chunk (no `who`): the undo is one entry, written when it ends.
      const caller = { workspaceId: ws.id, workspace: ws, userId: null };
      let removed = 0;
      for (let after = ''; ; ) {
        const ids = await jobs.linkIds(job.id, after, UNDO_CHUNK);
        if (!ids.length) break;
        removed += (await deps.links.bulkDelete(caller, ids)).deletedCount;
        after = ids[ids.length - 1]!;
      }
      await jobs.undone(job.id, removed);
      await recordAlone(deps.database, who, { workspaceId: ws.id, action: 'links.import_undo', targetIds: [job.id], changes: { deleted: removed } });
      return (await jobs.get(ws.id, id))!;
    },
  };
}
export type JobRunner = ReturnType<typeof createJobRunner>;

/**
 * Import jobs: every import over HTTP (the API, the dashboard) is recorded with an id, a state,
 * its counts and the file it reads, kept in a spool directory until the job is over. A job is
 * `running`, then `completed`, `failed` (a limit refused the rest: 413, 422) or `interrupted`
 * (the server stopped, the upload was cut, or the process died: a running job whose heartbeat is
 * older than `staleMs` is answered as interrupted). An interrupted job whose file arrived whole
 * can be resumed: it reads the file again after the last line written, and rows of the batch that
 * was being written are found as its own links (import_job_links), so nothing is created twice.
 * Any job that is not running can be undone: exactly the links it created are deleted.
 *
 * @example
 * const job = await jobs.begin(ws.id, { source: 'api', contentType: 'text/csv', mapping: {}, createdBy: keyId });
 * // ... the import runs with `job: { id: job.id }` ...
 * await jobs.finish(job.id, 'completed', report);
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Kysely, Transaction } from 'kysely';
import type { Database, ImportJobsTable } from '../db/tables.js';

/** The form of every import job's id. */
export const IMPORT_ID = /^imp_[0-9a-f]{24}$/;

export type ImportJobState = 'running' | 'completed' | 'interrupted' | 'failed' | 'undone';

/** A job as the API answers it. */
export interface ImportJob {
  id: string;
  state: ImportJobState;
  source: string;
  layout: string | null;
  counts: { rows: number; created: number; skipped: number; rejected: number };
  /** Links removed by an undo. */
  undone: number;
  /** The last line of the file whose rows are written (the header is line 1). */
  lastLine: number;
  /** Whether the file arrived whole: only then can the job be resumed. */
  uploadComplete: boolean;
  resumable: boolean;
  undoable: boolean;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export interface ImportJobRecord extends ImportJob {
  workspaceId: string;
  contentType: string;
  mapping: Record<string, string>;
  spoolPath: string | null;
}

export interface Counts {
  rows: number;
  created: number;
  skipped: number;
  rejected: number;
}

export interface ImportJobsOptions {
  /** Where spooled files are kept until their job is over. */
  spoolDir: string;
  /** A running job whose heartbeat is older is answered as interrupted. */
  staleMs: number;
  now?: () => number;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

export function jobOf(row: ImportJobsTable, now: number, staleMs: number): ImportJobRecord {
  const stale = row.state === 'running' && now - Number(row.heartbeat_at) > staleMs;
  const state = (stale ? 'interrupted' : row.state) as ImportJobState;
  const uploadComplete = Number(row.upload_complete) === 1;
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    state,
    source: row.source,
    layout: row.layout,
    counts: { rows: Number(row.rows), created: Number(row.created), skipped: Number(row.skipped), rejected: Number(row.rejected) },
    undone: Number(row.undone),
    lastLine: Number(row.last_line),
    uploadComplete,
    resumable: state === 'interrupted' && uploadComplete && row.spool_path !== null,
    undoable: state !== 'running' && state !== 'undone' && Number(row.created) > 0,
    error: stale ? 'The import stopped without finishing (the server stopped or restarted).' : row.error,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.heartbeat_at),
    finishedAt: row.finished_at === null ? null : iso(row.finished_at),
    contentType: row.content_type,
    mapping: JSON.parse(row.options) as Record<string, string>,
    spoolPath: row.spool_path,
  };
}

/** What the API answers of a record (not where its file is). */
export function publicJob(job: ImportJobRecord): ImportJob {
  const { workspaceId: _w, contentType: _c, mapping: _m, spoolPath: _s, ...rest } = job;
  return rest;
}

export function createImportJobs(db: Kysely<Database>, options: ImportJobsOptions) {
  const now = options.now ?? Date.now;
  const read = (row: ImportJobsTable | undefined) => (row ? jobOf(row, now(), options.staleMs) : undefined);

  return {
    staleMs: options.staleMs,

    async begin(workspaceId: string, meta: { source: string; contentType: string; mapping: Record<string, string>; createdBy: string | null }): Promise<ImportJobRecord> {
      const id = `imp_${randomBytes(12).toString('hex')}`; // the form IMPORT_ID holds
      mkdirSync(options.spoolDir, { recursive: true, mode: 0o700 });
      const at = now();
      const row: ImportJobsTable = {
        id,
        workspace_id: workspaceId,
        state: 'running',
        source: meta.source,
        content_type: meta.contentType,
        options: JSON.stringify(meta.mapping),
        spool_path: join(options.spoolDir, `${id}.upload`),
        upload_complete: 0,
        layout: null,
        rows: 0,
        created: 0,
        skipped: 0,
        rejected: 0,
        undone: 0,
        last_line: 0,
        error: null,
        created_by: meta.createdBy,
        created_at: at,
        heartbeat_at: at,
        finished_at: null,
      };
      await db.insertInto('import_jobs').values(row).execute();
      return read(row)!;
    },

    async get(workspaceId: string, id: string): Promise<ImportJobRecord | undefined> {
      return read(await db.selectFrom('import_jobs').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst());
    },

    async list(workspaceId: string, limit = 50): Promise<ImportJobRecord[]> {
      const rows = await db.selectFrom('import_jobs').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map((r) => read(r)!);
    },

    async uploaded(id: string): Promise<void> {
      await db.updateTable('import_jobs').set({ upload_complete: 1 }).where('id', '=', id).execute();
    },

    /** Forgets a job refused before it read anything (too many imports at once). */
    async discard(id: string): Promise<void> {
      const row = await db.selectFrom('import_jobs').select('spool_path').where('id', '=', id).executeTakeFirst();
      await db.deleteFrom('import_jobs').where('id', '=', id).execute();
      await removeFile(row?.spool_path ?? null);
    },

    /**
     * Marks a running job alive, unless its row was marked within `freshForMs` (the import's own
     * progress writes mark it after every batch). The check is a read: on SQLite the redirect
     * thread's write would wait, synchronously, for the import thread's batch to commit.
     * Returns whether it wrote.
     */
    async heartbeat(id: string, freshForMs = 0): Promise<boolean> {
      if (freshForMs > 0) {
        const row = await db.selectFrom('import_jobs').select('heartbeat_at').where('id', '=', id).executeTakeFirst();
        if (row && now() - Number(row.heartbeat_at) < freshForMs) return false;
      }
      await db.updateTable('import_jobs').set({ heartbeat_at: now() }).where('id', '=', id).where('state', '=', 'running').execute();
      return true;
    },

    /** Ends a job; a completed or undone job's file is removed, and so is one that cannot be resumed. */
    async finish(id: string, state: Exclude<ImportJobState, 'running'>, result: { counts?: Counts; layout?: string; error?: string | null; uploadComplete: boolean }): Promise<void> {
      const row = await db.selectFrom('import_jobs').select(['spool_path']).where('id', '=', id).executeTakeFirst();
      const keepFile = state === 'interrupted' && result.uploadComplete;
      await db
        .updateTable('import_jobs')
        .set({
          state,
          finished_at: now(),
          heartbeat_at: now(),
          error: result.error ?? null,
          upload_complete: result.uploadComplete ? 1 : 0,
          ...(result.layout ? { layout: result.layout } : {}),
          ...(result.counts ?? {}),
          ...(keepFile ? {} : { spool_path: null }),
        })
        .where('id', '=', id)
        .execute();
      if (!keepFile && row?.spool_path) await rm(row.spool_path, { force: true });
    },

    /** Takes an interrupted job back to running (false when another resume or undo took it first). */
    async claim(job: ImportJobRecord, state: 'running' | 'undone'): Promise<boolean> {
      const r = await db
        .updateTable('import_jobs')
        .set({ state, heartbeat_at: now(), error: null, ...(state === 'undone' ? { finished_at: now() } : { finished_at: null }) })
        .where('id', '=', job.id)
        .where('heartbeat_at', '=', Date.parse(job.updatedAt))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },

    async linkIds(id: string, after: string, limit: number): Promise<string[]> {
      const rows = await db.selectFrom('import_job_links').select('link_id').where('import_id', '=', id).where('link_id', '>', after).orderBy('link_id').limit(limit).execute();
      return rows.map((r) => r.link_id);
    },

    async undone(id: string, count: number): Promise<void> {
      const row = await db.selectFrom('import_jobs').select('spool_path').where('id', '=', id).executeTakeFirst();
      await db.updateTable('import_jobs').set({ state: 'undone', undone: count, spool_path: null, finished_at: now(), heartbeat_at: now() }).where('id', '=', id).execute();
      if (row?.spool_path) await rm(row.spool_path, { force: true });
    },
  };
}
export type ImportJobs = ReturnType<typeof createImportJobs>;

/**
 * The writes an import makes for its job on its own connection (the import thread's): the links
 * it created, in their transaction, and its progress after each batch.
 */
export function createJobWriter(db: Kysely<Database>, id: string, now: () => number = Date.now) {
  return {
    async linksCreated(trx: Transaction<Database>, linkIds: readonly string[]): Promise<void> {
      if (linkIds.length) await trx.insertInto('import_job_links').values(linkIds.map((link_id) => ({ import_id: id, link_id }))).execute();
    },
    /** Of these links, the ones this job created (a resume meets them again). */
    async own(linkIds: readonly string[]): Promise<Set<string>> {
      if (!linkIds.length) return new Set();
      const rows = await db.selectFrom('import_job_links').select('link_id').where('import_id', '=', id).where('link_id', 'in', [...linkIds]).execute();
      return new Set(rows.map((r) => r.link_id));
    },
    async progress(counts: Counts, lastLine: number, layout: string): Promise<void> {
      await db.updateTable('import_jobs').set({ ...counts, last_line: lastLine, layout, heartbeat_at: now() }).where('id', '=', id).where('state', '=', 'running').execute();
    },
  };
}
export type JobWriter = ReturnType<typeof createJobWriter>;

/** Where import files are kept: IMPORT_SPOOL_DIR, else beside the SQLite file, else the temporary directory. */
export function spoolDirOf(config: { importSpoolDir?: string }, database: { sqlitePath?: string }): string {
  return config.importSpoolDir ?? (database.sqlitePath ? `${database.sqlitePath}.imports` : join(tmpdir(), 'waymark-imports'));
}

export async function removeFile(path: string | null): Promise<void> {
  if (path) await rm(path, { force: true });
}

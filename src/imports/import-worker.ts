/**
 * The import thread: imports sent over HTTP (the API, the dashboard) run here, through the same
 * import service as the CLI (standalone.ts) on a connection of their own, so that neither their
 * CPU (parsing and judging: 0.1-0.4 ms a row), nor their garbage, nor SQLite's synchronous writes
 * and waits for the write lock hold the thread that serves redirects; at a lower priority (Linux
 * nice), so while the cores are busy redirects run first and imports take the rest. Imports here
 * share the thread in time slices (time-slice.ts).
 *
 * The file streams in by request: the thread asks for a chunk (`pull`) when its parser wants
 * one, so an upload is read at the import's pace and never held whole.
 *
 * Messages in: `start` (an import: workspace and options), `chunk` / `end` / `fail` (the body,
 * after a `pull`), `abort` (the client went away), `close`. Out: `pull`, `done` (the report),
 * `failed` (an ApiError's code and message, or an internal error's message), `changes` (links and
 * domains that changed, for the app's change bus), `closed`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config.js';
import { createChangeBus, type Change } from '../db/change-bus.js';
import { openDatabase } from '../db/open.js';
import { ApiError, type ErrorCode } from '../http/errors.js';
import { lowerThreadPriority } from '../thread-priority.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import type { CsvImportOptions, ImportReport } from './service.js';
import { createStandaloneImporter } from './standalone.js';

export interface ImportWorkerData {
  url: string;
  /** PostgreSQL schema of the app's connection, if any. */
  pgSchema?: string;
  /** Nice value of this thread (0: unchanged). */
  nice: number;
  config: Config;
}

export type ImportRequest =
  | { type: 'start'; id: number; workspace: WorkspaceRow; options: Omit<CsvImportOptions, 'onItem' | 'signal'> }
  | { type: 'chunk'; id: number; chunk: Uint8Array }
  | { type: 'end'; id: number }
  | { type: 'fail'; id: number }
  | { type: 'abort'; id: number }
  | { type: 'close' };

export type ImportReply =
  | { type: 'pull'; id: number }
  | { type: 'done'; id: number; report: ImportReport & { layout: string } }
  | { type: 'failed'; id: number; error: { code?: ErrorCode; message: string } }
  | { type: 'changes'; changes: Change[] }
  | { type: 'closed' };

/** The main thread could not read the body (its own error answers the request). */
class SourceFailed extends Error {}

const port = parentPort!;
const data = workerData as ImportWorkerData;
const post = (reply: ImportReply) => port.postMessage(reply);
lowerThreadPriority(data.nice);
// Checkpoints run on the app's checkpoint thread (db/checkpointer.ts).
const database = await openDatabase(data.url, { migrate: false, pgSchema: data.pgSchema, poolSize: 2, walAutocheckpoint: 0 });
const bus = createChangeBus();
// Sent once per turn: an import announces every link it creates.
let changes: Change[] = [];
bus.subscribe((change) => {
  if (!changes.length) setImmediate(() => post({ type: 'changes', changes: changes.splice(0) }));
  changes.push(change);
});
const importer = createStandaloneImporter(data.config, database, { bus });

interface Run {
  /** Settles the pending pull with the main thread's answer. */
  answer?: (msg: Extract<ImportRequest, { type: 'chunk' | 'end' | 'fail' }>) => void;
  abort: AbortController;
  finished: Promise<void>;
}
const runs = new Map<number, Run>();
let closing = false;

/** The body, pulled from the main thread a chunk at a time. */
async function* bodyOf(id: number, run: Run): AsyncGenerator<Buffer> {
  for (;;) {
    const msg = await new Promise<Extract<ImportRequest, { type: 'chunk' | 'end' | 'fail' }>>((resolve) => {
      run.answer = resolve;
      post({ type: 'pull', id });
    });
    run.answer = undefined;
    if (msg.type === 'end') return;
    if (msg.type === 'fail') throw new SourceFailed();
    yield Buffer.from(msg.chunk.buffer, msg.chunk.byteOffset, msg.chunk.byteLength);
  }
}

function start(msg: Extract<ImportRequest, { type: 'start' }>): void {
  const run: Run = { abort: new AbortController(), finished: Promise.resolve() };
  runs.set(msg.id, run);
  run.finished = importer
    .importCsv(msg.workspace, bodyOf(msg.id, run), { ...msg.options, signal: run.abort.signal })
    .then(
      (report) => post({ type: 'done', id: msg.id, report }),
      (err: unknown) =>
        post({ type: 'failed', id: msg.id, error: err instanceof ApiError ? { code: err.code, message: err.message } : { message: err instanceof SourceFailed ? 'source failed' : String((err as Error)?.stack ?? err) } }),
    )
    .finally(() => runs.delete(msg.id));
}

port.on('message', async (msg: ImportRequest) => {
  if (msg.type === 'start') {
    if (closing) post({ type: 'failed', id: msg.id, error: { code: 'internal_server_error', message: 'The server is shutting down.' } });
    else start(msg);
  } else if (msg.type === 'abort') runs.get(msg.id)?.abort.abort();
  else if (msg.type === 'close') {
    closing = true;
    // Each import stops at its next batch; a batch being written completes.
    for (const run of runs.values()) {
      run.abort.abort(new ApiError('internal_server_error', 'The server is shutting down: the import stopped. What was written before stays; importing the file again skips it.'));
      run.answer?.({ type: 'fail', id: 0 });
    }
    await Promise.all([...runs.values()].map((r) => r.finished));
    await database.close();
    post({ type: 'closed' });
  } else runs.get(msg.id)?.answer?.(msg);
});

/**
 * Room on the event file's volume for DuckDB's writes. A full disk is an expected state (issue 26):
 * DuckDB refuses a commit whose write-ahead log cannot grow (an ordinary error: the click writer keeps
 * the batch and sends it again under its id), but a CHECKPOINT that cannot write the event file
 * invalidates the whole instance until the process restarts ("database has been invalidated"). So
 * before each write the engine asks `before()`:
 *
 * - the log's budget (`checkpoint_threshold`, past which DuckDB checkpoints the log into the file
 *   and empties it) follows the free space: a quarter of it, between 1 MB and the engine's
 *   threshold (`DUCKDB_CHECKPOINT_MB`; this file's measurement was at 256 MB). Measured on a
 *   32 MB tmpfs under a click flood: at the fixed 256 MB the log took back ~4-5 MB a second of
 *   freed space (about 400 bytes per click) and filled the volume again; a checkpoint needs room
 *   for the log's rows in the file, compressed, well under the log's own size, so a log kept to a
 *   quarter of the free space can always be checkpointed.
 * - under `MIN_FREE_BYTES` free, the write is refused before DuckDB sees it (an ENOSPC error), so
 *   no checkpoint is attempted on a full disk; the caller keeps the batch and retries.
 *
 * @example
 * const room = createDiskRoom({ dir: dirname(path), setBudget: (mb) => writer.run(`SET checkpoint_threshold = '${mb}MB'`) });
 * await room.before(); // throws ENOSPC when the volume is (nearly) full
 */
import { statfsSync } from 'node:fs';

/** Below this much free space on the volume, DuckDB is not asked to write. */
export const MIN_FREE_BYTES = 4 * 1024 * 1024;
const MB = 1024 * 1024;
/** The log's budget when the disk has room, unless the engine is given another (`DUCKDB_CHECKPOINT_MB`). */
export const MAX_WAL_BUDGET_MB = 256;

/** The write-ahead log's budget in whole MB for a volume with `freeBytes` free: a quarter, within [1, maxMb]. */
export function walBudgetMb(freeBytes: number, maxMb = MAX_WAL_BUDGET_MB): number {
  return Math.max(1, Math.min(maxMb, Math.floor(freeBytes / 4 / MB)));
}

/** Whether an error says the disk is full (Node's ENOSPC, DuckDB's and SQLite's wordings). */
export function isNoSpace(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'ENOSPC' || e?.code === 'SQLITE_FULL' || /no space left on device|database or disk is full/i.test(String(e?.message ?? err));
}

/** Bytes an ordinary user may still write on the volume holding `dir`; Infinity when it cannot be asked. */
export function freeBytesAt(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Infinity;
  }
}

export interface DiskRoom {
  /** Sets the log's budget for the free space now; throws ENOSPC below `MIN_FREE_BYTES`. */
  before(): Promise<void>;
  /** Whether a checkpoint of a log of `walBytes` fits now (close() checkpoints only then). */
  fits(walBytes: number): boolean;
}

export function createDiskRoom(options: {
  dir: string | undefined;
  setBudget: (mb: number) => Promise<unknown>;
  freeBytes?: (dir: string) => number;
  /** The budget with room on the disk: the `checkpoint_threshold` the instance was opened with, MB. */
  maxBudgetMb?: number;
}): DiskRoom {
  const { dir, setBudget } = options;
  const free = options.freeBytes ?? freeBytesAt;
  const maxMb = options.maxBudgetMb ?? MAX_WAL_BUDGET_MB;
  let budget = maxMb;
  return {
    async before() {
      if (!dir) return;
      const bytes = free(dir);
      if (bytes < MIN_FREE_BYTES) {
        throw Object.assign(new Error(`No space left on device: ${Math.floor(bytes / 1024)} KB free beside the event file, ${MIN_FREE_BYTES / MB} MB needed to write`), { code: 'ENOSPC' });
      }
      const next = walBudgetMb(bytes, maxMb);
      if (next !== budget) {
        await setBudget(next);
        budget = next;
      }
    },
    fits(walBytes) {
      return !dir || free(dir) >= walBytes + MIN_FREE_BYTES;
    },
  };
}

/**
 * Spill files: the clicks a shutdown could not commit within its grace (`CLICK_SHUTDOWN_GRACE_MS`)
 * are written to a local file, and the next start writes them to the database before it serves.
 * So SIGTERM loses no click however slow the database is.
 *
 * - One file per spill (normally one per process), `clicks-<ms>-<pid>-<n>.jsonl`: a header line
 *   (format, version, which database, how many clicks), then one raw click per line
 *   (events/log/raw-click.ts). Written to `<name>.tmp`, fsynced, renamed, and the folder fsynced, so a
 *   file with the final name is whole.
 * - The clicks hold visitors' IP addresses and user agents: files are 0600 in a 0700 folder, and
 *   deleted once replayed.
 * - Replay is idempotent: a batch in flight at shutdown may have been stored after all (or without
 *   its acknowledgement), so the clicks already stored are skipped; each replayed batch's id is
 *   made of the file's name and the batch's place in it, so a replay cut short and repeated adds
 *   nothing either. A file that cannot be read, belongs to another database, or whose clicks
 *   cannot be stored is kept (and logged) for the next start.
 *
 * @example
 * const file = writeSpillFile(dir, database.identity, rows); // at shutdown
 * await replaySpilledClicks({ dir, database: identity, log: events, batchRows: 2000 }); // at start
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { localFile, type LocalFiles } from '../db/open.js';
import { z } from 'zod';
import type { RawClick } from '../events/index.js';
import type { ClickAppender } from './click-writer.js';

const FORMAT = 'waymark-click-spill';
const FILE_NAME = /^clicks-\d+-\d+-\d+\.jsonl$/;
/** Rows serialised per write call: bounds the string built at once. */
const WRITE_CHUNK = 1_000;

/**
 * The spill folder: `CLICK_SPILL_DIR`; else `click-spill` among the database's local files (beside
 * the SQLite file; `./data` under the working directory with PostgreSQL, local to the process).
 * None for an in-memory database, which does not outlive the process anyway.
 */
export function spillDirFor(spillDir: string | undefined, localFiles: LocalFiles | undefined): string | undefined {
  if (spillDir) return resolve(spillDir);
  return localFiles ? localFile(localFiles, 'click-spill') : undefined;
}

/** `read` of `path`, or of its nearest existing parent (a folder made at the first spill). */
function nearestExisting<T>(path: string, read: (p: string) => T): T | undefined {
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      return read(p);
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}

const deviceOf = (path: string) => nearestExisting(path, (p) => statSync(p).dev);

/** Bytes free for this process on the volume of `path` (or its nearest existing parent). */
export function freeBytesOf(path: string): number | undefined {
  return nearestExisting(path, (p) => {
    const fs = statfsSync(p);
    return fs.bavail * fs.bsize;
  });
}

/**
 * Free space under which a spill folder on the data's volume is warned about at start. A spill
 * holds at most CLICK_BUFFER_MAX clicks (~150 MB by default), and it is needed when the data
 * cannot be written, a full disk among the causes; on a volume with room to spare the shared
 * layout is the documented default (docs/deploy.md), not worth a warning on every start.
 */
export const SPILL_VOLUME_LOW_FREE_BYTES = 1024 ** 3;

/**
 * Whether the start warns of the spill folder's volume: it shares the data's volume (`shared`,
 * spillSharesVolume) and that volume has less than SPILL_VOLUME_LOW_FREE_BYTES free (unknown
 * free space counts as low).
 */
export function warnOfSpillVolume(shared: string | undefined, freeBytes: number | undefined): boolean {
  return shared !== undefined && (freeBytes === undefined || freeBytes < SPILL_VOLUME_LOW_FREE_BYTES);
}

/**
 * The first of `dataPaths` (the SQLite file, the event log's file) on the same volume as the
 * spill folder, or undefined. Spilling is for when the database cannot take the clicks in time;
 * when that is because their shared disk is full, the spill file cannot be written either.
 */
export function spillSharesVolume(spillDir: string, dataPaths: readonly (string | undefined)[]): string | undefined {
  const spill = deviceOf(spillDir);
  if (spill === undefined) return undefined;
  return dataPaths.find((p): p is string => p !== undefined && deviceOf(p) === spill);
}

const Header = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  database: z.string(),
  pid: z.number().int(),
  createdAt: z.number().int(),
  count: z.number().int().nonnegative(),
});

const text = z.string().max(65_536);
const Click = z.object({
  id: z.string().regex(/^[0-9A-Za-z]{16}$/),
  timestamp: z.number().int().nonnegative(),
  linkId: z.string().min(1).max(200),
  workspaceId: z.string().min(1).max(200),
  domain: text,
  key: text,
  url: text,
  ip: z.string().max(200),
  ua: text,
  referer: text,
  qr: z.boolean(),
  geo: z.object({ country: text, region: text, city: text, continent: text }).nullable(),
});

let spills = 0;

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `rows` durably to a new file in `dir` (synchronous: it runs on the way out); returns its path. */
export function writeSpillFile(dir: string, database: string, rows: readonly RawClick[], now = Date.now()): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `clicks-${now}-${process.pid}-${++spills}.jsonl`;
  const tmp = join(dir, `${name}.tmp`);
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ format: FORMAT, version: 1, database, pid: process.pid, createdAt: now, count: rows.length })}\n`);
    for (let i = 0; i < rows.length; i += WRITE_CHUNK) {
      let chunk = '';
      for (const row of rows.slice(i, i + WRITE_CHUNK)) chunk += `${JSON.stringify(row)}\n`;
      writeSync(fd, chunk);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const file = join(dir, name);
  renameSync(tmp, file);
  fsyncDir(dir);
  return file;
}

/** Reads and validates a spill file: its header and every click. Throws on anything malformed. */
export function readSpillFile(file: string): { database: string; clicks: RawClick[] } {
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const header = Header.parse(JSON.parse(lines[0] ?? 'null'));
  const clicks = lines.slice(1).map((line, i) => {
    const parsed = Click.safeParse(JSON.parse(line));
    if (!parsed.success) throw new Error(`line ${i + 2}: ${parsed.error.issues[0]?.message ?? 'not a click'}`);
    return parsed.data;
  });
  if (clicks.length !== header.count) throw new Error(`${clicks.length} clicks, the header says ${header.count}`);
  return { database: header.database, clicks };
}

export interface ReplayOptions {
  dir: string;
  /** `OpenDatabase.identity` of the database being written: files of another are left alone. */
  database: string;
  log: ClickAppender & { existingClickIds(ids: readonly string[]): Promise<string[]> };
  /** Clicks per transaction. */
  batchRows: number;
  onError?: (err: unknown, context: string) => void;
  onReplayed?: (file: string, written: number, alreadyStored: number) => void;
}

export interface ReplayResult {
  /** Files replayed and deleted. */
  replayed: number;
  /** Files left in place (unreadable, another database's, or not written). */
  kept: string[];
  /** Clicks written, and clicks skipped because they were already stored. */
  written: number;
  alreadyStored: number;
}

/** Stores a batch's clicks that are not stored yet, under `batchId`; returns how many. */
async function writeMissing(log: ReplayOptions['log'], batchId: string, batch: readonly RawClick[]): Promise<number> {
  const stored = new Set(await log.existingClickIds(batch.map((c) => c.id)));
  const missing = batch.filter((c) => !stored.has(c.id));
  if (!missing.length) return 0;
  await log.appendRawClicks(batchId, missing);
  return missing.length;
}

/** Replays every spill file of `dir` into the database, oldest first. Never throws: failures are logged and the file kept. */
export async function replaySpilledClicks(options: ReplayOptions): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: 0, kept: [], written: 0, alreadyStored: 0 };
  let names: string[];
  try {
    names = readdirSync(options.dir).filter((n) => FILE_NAME.test(n));
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') options.onError?.(err, `cannot read the click spill folder ${options.dir}`);
    return result;
  }
  // By time of the spill, then pid and sequence.
  names.sort((a, b) => {
    const pa = a.split(/[-.]/).slice(1, 4).map(Number);
    const pb = b.split(/[-.]/).slice(1, 4).map(Number);
    return pa[0]! - pb[0]! || pa[1]! - pb[1]! || pa[2]! - pb[2]!;
  });
  for (const name of names) {
    const file = join(options.dir, name);
    try {
      const spilled = readSpillFile(file);
      if (spilled.database !== options.database) {
        options.onError?.(new Error('another database'), `click spill file ${file} belongs to ${spilled.database}, not ${options.database}: left in place`);
        result.kept.push(file);
        continue;
      }
      let written = 0;
      for (let i = 0; i < spilled.clicks.length; i += options.batchRows) written += await writeMissing(options.log, `${name}#${i}`, spilled.clicks.slice(i, i + options.batchRows));
      unlinkSync(file);
      fsyncDir(options.dir);
      result.replayed++;
      result.written += written;
      result.alreadyStored += spilled.clicks.length - written;
      options.onReplayed?.(file, written, spilled.clicks.length - written);
    } catch (err) {
      options.onError?.(err, `replaying click spill file ${file} failed: left in place for the next start`);
      result.kept.push(file);
    }
  }
  return result;
}

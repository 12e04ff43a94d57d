/**
 * What the full-disk tests share (flood, restart, spill-volume .test.ts here). A full disk is an
 * expected state (issue 26, class 3). The real process, its SQLite file, DuckDB event file and
 * write-ahead log on one small tmpfs, under a flood of clicks: the disk is filled
 * (a filler file), freed, and the service heals by itself — every answered click stored, the link
 * counters equal to the events; a restart while the disk is full starts, serves redirects and
 * answers /health; SIGTERM while full loses no answered click when the spill folder is on another
 * volume. With the spill folder on the full volume, what a SIGTERM cannot spill is lost, and the
 * process says so: the start warns of that layout (docs/redirects.md, "A full disk").
 *
 * Black-box on purpose (HTTP and process only), so it holds whatever the click path looks like
 * inside. Needs root for the tmpfs (CI runs as root); skipped otherwise and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { TEST_ENGINE } from '../../src/test-support/harness.js';
import { startServer, type ClickLoad, type ServerProcess } from '../../src/test-support/server-process.js';
import { smallDiskUnavailable, type SmallDisk } from '../../src/test-support/small-disk.js';

export const skip = TEST_ENGINE === 'postgres' ? 'the data volume is SQLite and DuckDB files' : smallDiskUnavailable();
/**
 * Megabytes of the data volume: ~10 MB free once the files are made, room for ~25,000 clicks of
 * DuckDB write-ahead log (~400 bytes a click) at the fixed 256 MB budget of before.
 */
export const DISK_MB = 12;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Api {
  port: number;
  key: string;
  /** The server's output so far, shown with a failed request. */
  output?: () => string;
}

export async function get<T>(api: Api, path: string): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${api.port}${path}`, { headers: { authorization: `Bearer ${api.key}` } });
  if (res.status !== 200) assert.fail(`${path}: ${res.status} ${await res.text()}\n${api.output?.().slice(-3000) ?? ''}`);
  return (await res.json()) as T;
}

/** The link's counter, then the events analytics count: read in that order, counters ≤ events must hold. */
export async function countersAndEvents(api: Api, linkId: string): Promise<{ counter: number; events: number }> {
  const counter = (await get<{ clicks: number }>(api, `/links/${linkId}`)).clicks;
  const events = (await get<{ clicks: number }>(api, `/analytics?linkId=${linkId}&interval=all&groupBy=count`)).clicks;
  return { counter, events };
}

/** Waits (generously) until the link's counter and its events both reach `want`; returns the last figures. */
export async function settledAt(api: Api, linkId: string, want: number, timeoutMs = 180_000): Promise<{ counter: number; events: number }> {
  const deadline = Date.now() + timeoutMs;
  let last = await countersAndEvents(api, linkId);
  while ((last.counter < want || last.events < want) && Date.now() < deadline) {
    await sleep(500);
    last = await countersAndEvents(api, linkId);
  }
  return last;
}

/** Waits until `load` has `n` answers (or throws after a generous bound). */
export async function answeredAtLeast(load: ClickLoad, n: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (load.answered.size < n) {
    if (Date.now() > deadline) throw new Error(`only ${load.answered.size} of ${n} clicks answered`);
    await sleep(20);
  }
}

/** A server whose SQLite file, DuckDB file and its log are on `disk`, its spill folder in `spillDir`. */
export function serverOn(disk: SmallDisk, spillDir: string, port: number, key: string): Promise<ServerProcess> {
  return startServer(`file:${join(disk.dir, 'waymark.db')}`, port, key, {
    EVENTS_URL: 'duckdb',
    CLICK_SPILL_DIR: spillDir,
    // The analytics below read the clicks as stored; nothing else of the server's output matters.
    LOG_LEVEL: 'warn',
  });
}

export async function stop(server: ServerProcess | undefined): Promise<number | null> {
  if (!server || server.child.exitCode !== null) return server?.child.exitCode ?? null;
  server.child.kill('SIGTERM');
  return server.exited;
}

/** Counters never ahead of the events they count, sampled `times` times while the flood runs. */
export async function countersNeverAhead(api: Api, linkId: string, times: number, log: string[]): Promise<void> {
  for (let i = 0; i < times; i++) {
    const { counter, events } = await countersAndEvents(api, linkId);
    log.push(`counter ${counter} events ${events}`);
    assert.ok(counter <= events, `the link counter (${counter}) is ahead of the stored events (${events})`);
    await sleep(400);
  }
}


/**
 * Replays what the previous version's click journal left, then removes it. That version committed
 * each click batch as a CSV file beside the event file (`<event file>.batches/`) and a
 * `click_journal` row in the metadata database (migration 0017) with the batch's per-link counts,
 * in one transaction with the workspaces' usage, outbox rows and webhook deliveries; a row went
 * once the batch was both appended to DuckDB (`stored`) and added to the link counters
 * (`counted`). A crash or a stop could leave rows, and their files, behind.
 *
 * Here, once, before the event log serves: every batch not marked stored is appended from its file
 * (rows by value, so ids already stored, by an append whose acknowledgement was lost, are
 * skipped); then, in one transaction, the per-link counts of every batch not marked counted (and
 * not lost with its file) are added to the link counters and the table is dropped. Only after that commit do the files go. A
 * crash before the commit repeats everything, and appends nothing twice; after it, only the
 * clean-up. Usage, outbox rows and deliveries were
 * written with each row and are not touched.
 *
 * @example
 * const replayed = await replayClickJournal({ db, dialect, engine, eventFile }); // null: no journal
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Dialect } from '../../db/dialect.js';
import { createLinkCounters, type LinkBump } from '../counters.js';
import { parseEventsCsv } from './legacy-journal.js';
import type { DuckDbEngine } from '../duckdb/duckdb-engine.js';

/** A row of the previous version's `click_journal`. */
interface ClickJournalRow {
  seq: number;
  created_at: number;
  clicks: number;
  /** The batch's file, a name in the batch folder. */
  file: string;
  /** JSON: the batch's per-link counts. */
  bumps: string;
  counted: number;
  stored: number;
}

export interface JournalReplay {
  /** Journal rows found. */
  batches: number;
  /** Clicks appended to the event file now (the others were stored before). */
  appended: number;
  /** Clicks added to the link counters now. */
  counted: number;
  /** Rows whose file was gone although the batch was not marked stored (their clicks are lost). */
  missingFiles: number;
}

/** The bumps of several batches as one: clicks added, the newest click kept. */
function mergeBumps(lists: readonly (readonly LinkBump[])[]): LinkBump[] {
  const merged = new Map<string, LinkBump>();
  for (const list of lists) {
    for (const b of list) {
      const m = merged.get(b.id);
      if (m) {
        m.clicks += b.clicks;
        m.lastClicked = Math.max(m.lastClicked, b.lastClicked);
      } else merged.set(b.id, { ...b });
    }
  }
  return [...merged.values()];
}

export async function replayClickJournal(options: {
  db: Kysely<Database>;
  dialect: Dialect;
  engine: Pick<DuckDbEngine, 'append'>;
  /** The event file's path (`:memory:` has no batch folder). */
  eventFile: string;
  log?: (message: string, fields: Record<string, unknown>) => void;
}): Promise<JournalReplay | null> {
  const tables = await options.db.introspection.getTables();
  // PostgreSQL lists every schema's tables: only this database's (search_path) counts.
  const schema = options.dialect.name === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(options.db)).rows[0]?.s : undefined;
  if (!tables.some((t) => t.name === 'click_journal' && (schema === undefined || t.schema === schema))) return null;
  const db = options.db.withTables<{ click_journal: ClickJournalRow }>();
  const dir = options.eventFile === ':memory:' ? undefined : `${options.eventFile}.batches`;
  const rows = await db.selectFrom('click_journal').selectAll().orderBy('seq').execute();
  const out: JournalReplay = { batches: rows.length, appended: 0, counted: 0, missingFiles: 0 };
  const lost = new Set<number>();
  for (const r of rows) {
    if (Number(r.stored) === 1) continue;
    const file = dir ? `${dir}/${r.file}` : undefined;
    if (!file || !existsSync(file)) {
      out.missingFiles++;
      lost.add(Number(r.seq));
      continue;
    }
    out.appended += await options.engine.append(parseEventsCsv(readFileSync(file, 'utf8')));
  }
  // The counters count what the event file holds: a batch whose file is gone is not counted.
  const uncounted = rows.filter((r) => Number(r.counted) === 0 && !lost.has(Number(r.seq)));
  const bumps = mergeBumps(uncounted.map((r) => JSON.parse(r.bumps) as LinkBump[]));
  out.counted = bumps.reduce((n, b) => n + b.clicks, 0);
  const counters = createLinkCounters(options.dialect);
  await db.transaction().execute(async (trx) => {
    if (bumps.length) await counters.addClicks(trx as unknown as Kysely<Database>, bumps, []);
    await trx.schema.dropTable('click_journal').execute();
  });
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (rows.length) options.log?.('click journal of the previous version replayed and removed', { ...out });
  return out;
}

/**
 * The upgrade of an installation whose event log was in the SQL store (`EVENTS_URL=sql`) to the
 * column store: at start, before the store opens (app.ts), every row of the metadata database's
 * `events` table is copied into the column store, then the clicks are dropped from `events`
 * (leads and sales stay there: the column store design keeps them in the metadata database).
 *
 * Resumable and loss-free: progress is a cursor in the order of `events`' primary key
 * (workspace_id, timestamp, id) in `column_store_upgrade` (migration 0014), advanced only after a
 * batch is appended idempotently (on DuckDB by the batch's name, recorded with it: `appendOnce`;
 * elsewhere by event id, every id then found in the column store).
 * Once everything is copied, counts per workspace and kind are compared; only then are clicks
 * dropped, each batch only after its ids are found again in the column store (a click written
 * since the copy is copied first). Every click it copies is counted already (the SQL store's
 * upgrade, fold-clicks.ts, runs first). A process that dies anywhere repeats at most one batch.
 *
 * The SQL rollups are left as they are: the column store does not read them, and for periods
 * whose raw events retention already deleted they are the only record (docs/architecture.md).
 *
 * @example
 * const engine = await openDuckDbEngine({ path });
 * const report = await upgradeToColumnStore({ db, engine, log: (msg, f) => logger.info(f, msg) });
 * const events = await openColumnEventStore({ database, engine });
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { StoredEvent } from '../event-store.js';
import type { ColumnEngine } from '../column/column-engine.js';
import { ID_CHUNK, rowsByIds } from '../column/metadata-events.js';
import { createHash } from 'node:crypto';

/** The progress row (migration 0014). */
export interface UpgradeStateTable {
  id: number;
  phase: 'copy' | 'drop' | 'done';
  after_workspace_id: string | null;
  after_timestamp: number | null;
  after_id: string | null;
  copied: number;
  dropped: number;
  started_at: number;
  finished_at: number | null;
}
type Tables = Database & { column_store_upgrade: UpgradeStateTable };

export interface UpgradeOptions {
  db: Kysely<Database>;
  engine: ColumnEngine;
  /** Rows per batch (default 20,000: each batch's check of stored ids scans the column store's ids, so fewer batches go faster). */
  batch?: number;
  /** Stop after this many batches, leaving the rest to the next run (tests; a run may be spread out). */
  maxBatches?: number;
  now?: () => number;
  /** What was moved, as it goes: one line per phase and every ~100,000 rows. */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface UpgradeReport {
  /** `nothing`: no event to move; `done`: moved before; `complete`: moved now; `partial`: stopped at `maxBatches`. */
  outcome: 'nothing' | 'done' | 'complete' | 'partial';
  copied: number;
  dropped: number;
  /** Per workspace and kind, the metadata database's count and the column store's, as compared. */
  counts: { workspaceId: string; kind: string; sql: number; column: number }[];
}

type Cursor = { workspaceId: string; timestamp: number; id: string } | null;

const LOG_EVERY = 100_000;

/** A row as the metadata database returned it, integers as numbers (PostgreSQL returns bigint as text). */
function toStored(r: Record<string, unknown>): StoredEvent {
  return {
    ...(r as unknown as StoredEvent),
    timestamp: Number(r.timestamp),
    amount: Number(r.amount ?? 0),
    original_amount: r.original_amount == null ? null : Number(r.original_amount),
  };
}

/** Moves the SQL store's events into the column store (see the module comment); safe to call at every start. */
export async function upgradeToColumnStore(options: UpgradeOptions): Promise<UpgradeReport> {
  const db = options.db.withTables<{ column_store_upgrade: UpgradeStateTable }>() as unknown as Kysely<Tables>;
  const { engine } = options;
  const batch = options.batch ?? 20_000;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => undefined);
  const report: UpgradeReport = { outcome: 'complete', copied: 0, dropped: 0, counts: [] };

  let state = await db.selectFrom('column_store_upgrade').selectAll().where('id', '=', 1).executeTakeFirst();
  if (state?.phase === 'done') return { ...report, outcome: 'done' };
  if (!state) {
    const any = await db.selectFrom('events').select('id').where('kind', '=', 'click').limit(1).executeTakeFirst();
    const row: UpgradeStateTable = {
      id: 1, phase: any ? 'copy' : 'done', after_workspace_id: null, after_timestamp: null, after_id: null,
      copied: 0, dropped: 0, started_at: now(), finished_at: any ? null : now(),
    };
    await db.insertInto('column_store_upgrade').values(row).execute();
    if (!any) return { ...report, outcome: 'nothing' };
    log('moving the SQL event log into the column store', { batch });
    state = row;
  } else {
    log('resuming the move of the SQL event log into the column store', { phase: state.phase, copied: Number(state.copied), dropped: Number(state.dropped) });
  }

  let cursor: Cursor = state.after_workspace_id == null ? null : { workspaceId: state.after_workspace_id, timestamp: Number(state.after_timestamp), id: state.after_id! };
  let copied = Number(state.copied);
  let dropped = Number(state.dropped);
  let batches = 0;
  const stopHere = () => options.maxBatches !== undefined && ++batches >= options.maxBatches;

  /** The next batch after the cursor, in primary key order (of one workspace when given). */
  async function nextRows(clicksOnly: boolean, workspaceId?: string, keysOnly = false): Promise<Record<string, unknown>[]> {
    let q = keysOnly ? db.selectFrom('events').select(['workspace_id', 'timestamp', 'id']) : db.selectFrom('events').selectAll();
    if (workspaceId !== undefined) q = q.where('workspace_id', '=', workspaceId);
    if (clicksOnly) q = q.where('kind', '=', 'click');
    if (cursor) {
      const c = cursor;
      q = q.where(({ eb, refTuple, tuple }) => eb(refTuple('workspace_id', 'timestamp', 'id'), '>', tuple(c.workspaceId, c.timestamp, c.id)));
    }
    return (await q.orderBy('workspace_id').orderBy('timestamp').orderBy('id').limit(batch).execute()) as unknown as Record<string, unknown>[];
  }
  const cursorOf = (r: Record<string, unknown>): Cursor => ({ workspaceId: String(r.workspace_id), timestamp: Number(r.timestamp), id: String(r.id) });
  async function save(phase: UpgradeStateTable['phase']): Promise<void> {
    await db.updateTable('column_store_upgrade').set({
      phase, after_workspace_id: cursor?.workspaceId ?? null, after_timestamp: cursor?.timestamp ?? null, after_id: cursor?.id ?? null,
      copied, dropped, finished_at: phase === 'done' ? now() : null,
    }).where('id', '=', 1).execute();
  }
  return run();

  /**
   * Appends the rows and checks that every one of them is in the column store. `next`: the batch
   * after the cursor, which a crash before the cursor was saved makes the next run read again.
   * DuckDB records it under a name made of the batch's first and last keys and size (`appendOnce`),
   * and skips it the second time, without looking up ids (a batch that differs the second time,
   * say by rows written behind the cursor meanwhile, is appended, and the count comparison copies
   * what any skipped one lacked). Other batches skip stored ids.
   */
  async function copyChecked(rows: readonly StoredEvent[], next = false): Promise<void> {
    if (next && engine.appendOnce) {
      const first = rows[0]!;
      const last = rows[rows.length - 1]!;
      const name = `upgrade-${createHash('sha256').update(JSON.stringify([first.workspace_id, first.timestamp, first.id, last.workspace_id, last.timestamp, last.id, rows.length])).digest('hex').slice(0, 32)}`;
      await engine.appendOnce(name, rows);
      return;
    }
    await engine.append(rows);
    const found = await engine.storedEvents(rows);
    const lost = rows.filter((r) => !found.has(r.id));
    if (lost.length) throw new Error(`column store upgrade: ${lost.length} copied events not found in the column store (first: ${lost[0]!.id}); nothing dropped`);
  }

  async function run(): Promise<UpgradeReport> {
    if (state!.phase === 'copy') {
      for (;;) {
        const rows = await nextRows(false);
        if (!rows.length) break;
        await copyChecked(rows.map(toStored), true);
        cursor = cursorOf(rows[rows.length - 1]!);
        const before = copied;
        copied += rows.length;
        report.copied += rows.length;
        await save('copy');
        if (Math.floor(copied / LOG_EVERY) > Math.floor(before / LOG_EVERY)) log('events copied into the column store', { copied });
        if (stopHere()) return { ...report, outcome: 'partial', dropped: 0 };
      }
      // Everything is copied: compare before anything is dropped.
      report.counts = await compareCounts(db, engine);
      let short = report.counts.filter((c) => c.column < c.sql);
      if (short.length) {
        // Rows written behind the cursor since the copy began (say, by a run with EVENTS_URL=sql in
        // between): those workspaces are copied again, stored ids skipped, and compared again.
        log('copying again the events of workspaces whose counts differ', { workspaces: [...new Set(short.map((c) => c.workspaceId))] });
        for (const workspaceId of new Set(short.map((c) => c.workspaceId))) {
          cursor = null;
          for (let rows = await nextRows(false, workspaceId); rows.length; rows = await nextRows(false, workspaceId)) {
            await copyChecked(rows.map(toStored));
            cursor = cursorOf(rows[rows.length - 1]!);
          }
        }
        report.counts = await compareCounts(db, engine);
        short = report.counts.filter((c) => c.column < c.sql);
      }
      for (const c of report.counts) log('events per workspace and kind', c);
      if (short.length) {
        throw new Error(`column store upgrade: the column store holds fewer events than the SQL store for ${short.map((c) => `${c.workspaceId}/${c.kind} (${c.column} < ${c.sql})`).join(', ')}; nothing dropped`);
      }
      log('events copied into the column store; counts per workspace and kind compared', { copied, workspaceKinds: report.counts.length });
      cursor = null;
      await save('drop');
    }

    // Drop the copied clicks, batch by batch, each checked again (a click written since the copy is copied first).
    for (;;) {
      const rows = await nextRows(true, undefined, true);
      if (!rows.length) break;
      const ids = rows.map((r) => String(r.id));
      const found = await engine.storedEvents(rows.map((r) => ({ id: String(r.id), workspace_id: String(r.workspace_id), timestamp: Number(r.timestamp) })));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length) await copyChecked(await rowsByIds(options.db, missing));
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < ids.length; i += ID_CHUNK) {
          const part = ids.slice(i, i + ID_CHUNK);
          // A click's id is its click id: events_click (click_id, kind) finds the rows; `events` has no index on id alone.
          await trx.deleteFrom('events').where('click_id', 'in', part).where('kind', '=', 'click').where('id', 'in', part).execute();
        }
      });
      cursor = cursorOf(rows[rows.length - 1]!);
      dropped += ids.length;
      report.dropped += ids.length;
      await save('drop');
      if (stopHere()) return { ...report, outcome: 'partial' };
    }
    await save('done');
    log('the SQL event log is in the column store: clicks dropped from the SQL events table, leads and sales kept there', { copied, dropped });
    return report;
  }
}

/** Events per workspace and kind in both stores (every workspace and kind the SQL store has). */
async function compareCounts(db: Kysely<Tables>, engine: ColumnEngine): Promise<UpgradeReport['counts']> {
  const sqlRows = await db.selectFrom('events').select(['workspace_id', 'kind', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['workspace_id', 'kind']).execute();
  const i = engine.dialect.ident;
  const columnRows = await engine.query({ text: `select ${i('workspace_id')} as workspace_id, ${i('kind')} as kind, count(*) as n from events group by ${i('workspace_id')}, ${i('kind')}`, params: [] });
  const column = new Map(columnRows.map((r) => [`${String(r.workspace_id)}\u0000${String(r.kind)}`, Number(r.n)]));
  return sqlRows
    .map((r) => ({ workspaceId: r.workspace_id, kind: r.kind, sql: Number(r.n), column: column.get(`${r.workspace_id}\u0000${r.kind}`) ?? 0 }))
    .sort((a, b) => (a.workspaceId === b.workspaceId ? a.kind.localeCompare(b.kind) : a.workspaceId < b.workspaceId ? -1 : 1));
}

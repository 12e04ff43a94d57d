/**
 * An erasure across the metadata database and a column store, in two halves joined by one row
 * (`event_erasures`, migration 0034), as the outbox joins a change to its delivery:
 *
 * 1. `eraseMetadata`, in one transaction of the metadata database (the caller's, on the main
 *    thread, or the log thread's own): the target's rows of `events` deleted, the link counters
 *    corrected, and one hand-off row naming the target;
 * 2. `applyErasures`, on the log thread, after that commit: the column store deletes the target's
 *    events (a delete by value: doing it twice deletes nothing more), then the hand-off row goes.
 *
 * A crash between the halves leaves the hand-off row; the next start (and every upkeep round)
 * applies it, so an erasure is either not committed at all or finished, never left half-done.
 * No half waits on the other thread while its transaction is open.
 *
 * @example
 * await db.transaction().execute((trx) => eraseMetadata(trx, counters, target, []));
 * await applyErasures(db, engine);
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { ForgetCounts } from '../event-store.js';
import type { LinkCounters } from '../counters.js';
import { newId } from '../../ids.js';
import type { EventTarget } from './column-engine.js';
import { customerEvents } from './metadata-events.js';
import { eraseCredits } from '../sql/credits.js';
import { markCredits } from './credit-copies.js';

/** What the counters need of an erased event. */
interface ErasedRow {
  id: string;
  workspace_id: string;
  link_id: string;
  kind: string;
  amount: number;
  customer_id: string | null;
}

/**
 * The metadata half, in `trx`: deletes the target's rows of `events`, subtracts from the link
 * counters what the erased events added (`columnRows`: the target's rows the column store holds,
 * read before the transaction; each event counted once by id), and records the hand-off. Returns
 * the events removed, by kind.
 */
export async function eraseMetadata(
  trx: Kysely<Database>,
  counters: LinkCounters | undefined,
  target: EventTarget,
  columnRows: readonly Record<string, unknown>[],
  now = Date.now(),
): Promise<ForgetCounts> {
  if (!target.values.length) return { clicks: 0, leads: 0, sales: 0 };
  let select = trx.selectFrom('events').select(['id', 'workspace_id', 'link_id', 'kind', 'amount', 'customer_id', 'click_id']).where(target.column, 'in', [...target.values]);
  let del = trx.deleteFrom('events').where(target.column, 'in', [...target.values]);
  if (target.workspaceId !== undefined) {
    select = select.where('workspace_id', '=', target.workspaceId);
    del = del.where('workspace_id', '=', target.workspaceId);
  }
  const metadataRows = await select.execute();
  await del.execute();
  const rows = new Map<string, ErasedRow>();
  for (const r of [...columnRows, ...metadataRows] as Record<string, unknown>[]) {
    rows.set(String(r.id), {
      id: String(r.id), workspace_id: String(r.workspace_id), link_id: String(r.link_id), kind: String(r.kind),
      amount: Number(r.amount ?? 0), customer_id: r.customer_id == null ? null : String(r.customer_id),
    });
  }
  const erased = [...rows.values()];
  // The credits (metadata database for every store): erased sales' go, sales credited to an erased touch are recomputed.
  const changed = await eraseCredits(trx, [...columnRows, ...metadataRows].map((r) => ({ id: String(r.id), workspace_id: String(r.workspace_id), kind: String(r.kind), click_id: r.click_id == null ? null : String(r.click_id) })), now);
  // The column file's copy follows (credit-copies.ts), with the hand-off's application.
  await markCredits(trx, changed);
  if (counters && erased.length) {
    await counters.subtractEvents(trx, erased);
    // A link's `conversions` counts customers with a sale on it: one less for each whose last sale there went.
    const sold = new Map<string, { workspaceId: string; customerId: string; linkId: string }>();
    for (const r of erased) {
      if (r.kind === 'sale' && r.customer_id) sold.set(`${r.workspace_id}\u0000${r.customer_id}\u0000${r.link_id}`, { workspaceId: r.workspace_id, customerId: r.customer_id, linkId: r.link_id });
    }
    for (const c of sold.values()) {
      const left = await customerEvents(trx, c.workspaceId, c.customerId, 'sale').select('id').where('link_id', '=', c.linkId).limit(1).executeTakeFirst();
      if (!left) await counters.subtractConversion(trx, c.workspaceId, c.linkId);
    }
  }
  await trx.insertInto('event_erasures').values({ id: newId('era', now), target: JSON.stringify(target), created_at: now }).execute();
  const n: ForgetCounts = { clicks: 0, leads: 0, sales: 0 };
  for (const r of erased) {
    if (r.kind === 'click') n.clicks++;
    else if (r.kind === 'lead') n.leads++;
    else if (r.kind === 'sale') n.sales++;
  }
  return n;
}

export interface ErasureApplier {
  /** Deletes the target's events from the column store; returns how many. */
  deleteEvents(target: EventTarget): Promise<number>;
  /** Called before the deletes: copies already reading the metadata database finish first. */
  settleCopies?(): Promise<void>;
}

/** The column half: applies every hand-off committed so far, oldest first; returns how many. */
export async function applyErasures(db: Kysely<Database>, engine: ErasureApplier): Promise<number> {
  const pending = await db.selectFrom('event_erasures').select(['id', 'target']).orderBy('id').execute();
  if (!pending.length) return 0;
  // A copy that read a row before its erasure committed must land before the delete, not after.
  await engine.settleCopies?.();
  for (const p of pending) {
    await engine.deleteEvents(JSON.parse(p.target) as EventTarget);
    await db.deleteFrom('event_erasures').where('id', '=', p.id).execute();
  }
  return pending.length;
}

/** How many hand-offs wait (tests, the crash test's check). */
export async function pendingErasures(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('event_erasures').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The upgrade that writes credits for the sales stored before credits existed (docs/decisions/0015
 * item 5): pages of sales in (workspace, time, id) order, each page's credits and the position
 * reached committed in one transaction, so a stop anywhere resumes after the last page that
 * committed, and a rerun (`restart`) replaces each sale's rows instead of adding to them. The
 * analytics module starts it; analytics read credits once it is done (`done()`), the read-time
 * path answers until then. The same job writes again the credits of the sales an erasure or an
 * import queued (`ConversionStore.queueRecompute`, events' erasures): `ready()` is false while any
 * is queued, and starts the recomputation.
 *
 * @example
 * const backfill = createCreditBackfill({ conversions, transaction: (fn) => db.transaction().execute(fn), now: Date.now });
 * await backfill.run();          // from where it stopped; nothing once done
 * await backfill.run({ restart: true }); // every sale again (tests, after events written around the roads)
 */
import type { ConversionStore } from '../events/index.js';
import { writeCredits } from './credit-writer.js';

type Store<Tx> = Pick<ConversionStore<Tx>, 'customerJourney' | 'replaceCredits' | 'salesAfter' | 'creditBackfill' | 'saveCreditBackfill' | 'queuedRecomputes' | 'dequeueRecomputes'>;

export interface CreditBackfillDeps<Tx> {
  conversions: Store<Tx>;
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  now(): number;
  /** Sales per page (default 500). */
  pageSize?: number;
  /** A recomputation started by `ready()` failed (it is tried again by the next `ready()`). */
  onError?: (err: unknown) => void;
}

export interface CreditBackfill {
  /** Writes the credits of the sales not done yet; returns how many sales it credited. */
  run(options?: { restart?: boolean }): Promise<number>;
  /** True once the backfill finished (read from the database until it has, then remembered). */
  done(): Promise<boolean>;
  /** Writes again the credits of the queued sales; returns how many. */
  recompute(): Promise<number>;
  /** True when the stored credits are complete: the backfill done and nothing queued (else starts the recomputation). */
  ready(): Promise<boolean>;
}

export function createCreditBackfill<Tx>(deps: CreditBackfillDeps<Tx>): CreditBackfill {
  const size = deps.pageSize ?? 500;
  let finished = false;
  let recomputing: Promise<number> | null = null;
  async function recomputeQueued(): Promise<number> {
    let n = 0;
    for (;;) {
      const { sales, gone } = await deps.conversions.queuedRecomputes(size);
      if (!sales.length && !gone.length) return n;
      await deps.transaction(async (tx) => {
        await writeCredits(deps.conversions, sales, tx);
        await deps.conversions.dequeueRecomputes([...sales.map((s) => s.id), ...gone], tx);
      });
      n += sales.length;
    }
  }
  const recompute = () => (recomputing ??= recomputeQueued().finally(() => (recomputing = null)));
  return {
    recompute,
    async ready() {
      if (!(await this.done())) return false;
      const { sales, gone } = await deps.conversions.queuedRecomputes(1);
      if (!sales.length && !gone.length) return true;
      void recompute().catch((err) => deps.onError?.(err));
      return false;
    },
    async run(options = {}) {
      let state = await deps.conversions.creditBackfill();
      if (options.restart) state = { after: null, done: false };
      if (state.done) return 0;
      let credited = 0;
      for (;;) {
        const after = state.after;
        const page = await deps.conversions.salesAfter(after, size);
        const last = page[page.length - 1];
        state = { after: last ? { workspaceId: last.workspace_id, timestamp: Number(last.timestamp), id: last.id } : after, done: page.length < size };
        const next = state;
        await deps.transaction(async (tx) => {
          await writeCredits(deps.conversions, page, tx);
          await deps.conversions.saveCreditBackfill(next, deps.now(), tx);
        });
        credited += page.length;
        if (state.done) break;
      }
      finished = true;
      return credited;
    },
    async done() {
      if (!finished) finished = (await deps.conversions.creditBackfill()).done;
      return finished;
    },
  };
}

/**
 * CPU cost of writing clicks, per click, in the click writer's two modes (src/redirect/click-fold.ts):
 * - `each`: every batch's events, rollups and link/workspace counters in one transaction;
 * - `coalesced`: batches commit events and usage; a fold every FOLD_EVERY clicks (28,000 by
 *   default: one second at the redirect benchmark's rate) adds them to rollups and link counters.
 * Batches of 2,000 clicks spread over 10,000 links, as in bench/redirect.ts; CPU time
 * (process.cpuUsage), not wall time, so the figures hold on a busy machine. Each mode gets a
 * fresh database, written twice over (the second pass writes into a bigger table).
 *
 * Run: node --import tsx bench/redirect/write-cost.ts
 */
import { createEventWriter } from '../../src/events/sql/event-writer.js';
import { createLinkCounters } from '../../src/events/counters.js';
import { createClickFold, type FoldMode } from '../../src/events/sql/click-fold.js';
import { benchClick, openClickBench } from './click-db.js';

const BATCH = Number(process.env.BATCH ?? 2000);
const CLICKS = Number(process.env.CLICKS ?? 112_000);
const FOLD_EVERY = Number(process.env.FOLD_EVERY ?? 28_000);

let bench = await openClickBench();
let n = 0;
// Round-robin over the links: a batch of 2,000 touches 2,000 of them, a fold all 10,000.
const click = () => benchClick(bench, bench.links[n++ % bench.links.length]!, n);

console.log(`CPU per click, batches of ${BATCH}, ${CLICKS} clicks per pass, 10,000 links; coalesced folds every ${FOLD_EVERY} clicks`);
for (const mode of ['each', 'coalesced'] as FoldMode[]) {
  const { database } = bench;
  const fold = createClickFold({ db: database.db, writer: createEventWriter(database.dialect), counters: createLinkCounters(database.dialect), mode });
  await fold.recover();
  for (let pass = 1; pass <= 2; pass++) {
    let writeUs = 0;
    let foldUs = 0;
    let sinceFold = 0;
    for (let i = 0; i < CLICKS; i += BATCH) {
      const batch = Array.from({ length: BATCH }, click);
      const t0 = process.cpuUsage();
      await fold.write(batch);
      const t1 = process.cpuUsage(t0);
      writeUs += t1.user + t1.system;
      sinceFold += BATCH;
      if (sinceFold >= FOLD_EVERY) {
        const t2 = process.cpuUsage();
        await fold.fold();
        const t3 = process.cpuUsage(t2);
        foldUs += t3.user + t3.system;
        sinceFold = 0;
      }
    }
    const t4 = process.cpuUsage();
    await fold.fold({ all: true });
    const t5 = process.cpuUsage(t4);
    foldUs += t5.user + t5.system;
    const per = (us: number) => (us / CLICKS).toFixed(1).padStart(5);
    console.log(`  ${mode.padEnd(9)} pass ${pass}: ${per(writeUs + foldUs)} µs  (batch transactions ${per(writeUs)}, folds ${per(foldUs)})`);
  }
  await bench.close();
  if (mode === 'each') bench = await openClickBench();
}

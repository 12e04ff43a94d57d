/**
 * What SQLite's statement journal costs the click writer: two databases set up as in
 * write-cost.ts (10,000 links), one written with the app's dialect (`or fail`: no statement
 * journal, Dialect.orFail) and one with a copy of it that leaves the clause out. Batches of 2,000
 * clicks on random links go to the two in turn, so a busy machine slows both alike; each folds
 * every 28,000 clicks. Prints CPU per click (process.cpuUsage) of each. Both databases share the
 * caches, so the absolute figures are higher than write-cost.ts's; compare the two lines.
 *
 * Run: node --import tsx bench/redirect/statement-journal.ts   (ROUNDS=120 batches per side)
 */
import { sql } from 'kysely';
import { sqliteDialect, type Dialect } from '../../src/db/dialect.js';
import { createEventWriter } from '../../src/events/sql/event-writer.js';
import { createLinkCounters } from '../../src/events/counters.js';
import { createClickFold } from '../../src/events/sql/click-fold.js';
import { benchClick, openClickBench } from './click-db.js';

/** The app's SQLite dialect without the `or fail` clause: SQLite keeps its statement journal. */
const withJournal: Dialect = { ...sqliteDialect, orFail: sql``, insertOrFail: (q) => q };

async function side(dialect: Dialect) {
  const bench = await openClickBench();
  const { db } = bench.database;
  const fold = createClickFold({ db, writer: createEventWriter(dialect), counters: createLinkCounters(dialect), mode: 'coalesced' });
  await fold.recover();
  let n = 0;
  const click = () => benchClick(bench, bench.links[Math.floor(Math.random() * bench.links.length)]!, ++n);
  return { bench, fold, click, write: 0, folds: 0, since: 0 };
}
const sides = { journal: await side(withJournal), orFail: await side(sqliteDialect) };
const BATCH = 2000, ROUNDS = Number(process.env.ROUNDS ?? 120), FOLD_EVERY = 28_000;
for (let r = 0; r < ROUNDS; r++) {
  for (const name of (r % 2 ? ['journal', 'orFail'] : ['orFail', 'journal']) as (keyof typeof sides)[]) {
    const s = sides[name];
    const batch = Array.from({ length: BATCH }, s.click);
    let t = process.cpuUsage();
    await s.fold.write(batch);
    let d = process.cpuUsage(t);
    s.write += d.user + d.system;
    s.since += BATCH;
    if (s.since >= FOLD_EVERY) {
      t = process.cpuUsage();
      await s.fold.fold();
      d = process.cpuUsage(t);
      s.folds += d.user + d.system;
      s.since = 0;
    }
  }
}
for (const [name, s] of Object.entries(sides)) {
  const clicks = ROUNDS * BATCH;
  console.log(`${name.padEnd(8)} ${((s.write + s.folds) / clicks).toFixed(1)} µs per click (batches ${(s.write / clicks).toFixed(1)}, folds ${(s.folds / clicks).toFixed(1)})`);
  await s.bench.close();
}

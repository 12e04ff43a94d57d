/**
 * CPU cost of the redirect's link lookup (`RedirectStore.findLink`, run on every link-cache miss
 * and reload) on SQLite with 10,000 links, side by side in one process:
 *
 * - **kept**: the app's connection (db/statement-cache.ts keeps prepared statements; the store
 *   builds the lookup's SQL once);
 * - **prepared each time**: the same store over Kysely on a plain better-sqlite3 connection, so
 *   SQLite parses and plans the statement on every call, as before the statement cache.
 *
 * Run: node --import tsx bench/redirect/link-lookup.ts
 */
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../../src/db/tables.js';
import { createRedirectStore } from '../../src/redirect/store.js';
import { openClickBench } from './click-db.js';

const LOOKUPS = 10_000;
const ROUNDS = 4;

const bench = await openClickBench();
const file = bench.database.sqlitePath!;
const plain = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(file) }) });
const sides = [
  { name: 'kept', store: createRedirectStore(bench.database.db), us: [] as number[] },
  { name: 'prepared each time', store: createRedirectStore(plain), us: [] as number[] },
];

for (let round = 0; round < ROUNDS; round++) {
  for (const side of sides) {
    const start = process.cpuUsage();
    let found = 0;
    for (let i = 0; i < LOOKUPS; i++) if (await side.store.findLink(['go.bench'], `k${(i * 7919) % 10_000}`)) found++;
    const used = process.cpuUsage(start);
    if (found !== LOOKUPS) throw new Error(`${side.name}: found ${found} of ${LOOKUPS} links`);
    side.us.push((used.user + used.system) / LOOKUPS);
  }
}

console.log(`findLink on SQLite, 10,000 links, ${ROUNDS} rounds of ${LOOKUPS} lookups each, alternating (µs of CPU per lookup):`);
for (const side of sides) console.log(`  ${side.name.padEnd(20)} ${side.us.map((x) => x.toFixed(1)).join('  ')}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`  ratio (median): ${(median(sides[1]!.us) / median(sides[0]!.us)).toFixed(1)}× cheaper kept`);
await plain.destroy();
await bench.close();

/**
 * CSV import benchmark (issue 18): generates a CSV of BENCH_ROWS links (default 100,000; url,
 * key, domain, title, tags, created: one custom domain, five tags) in a temp folder, imports it
 * into a fresh SQLite file through the import service the CLI and `POST /links/import` use
 * (streamed, 250 rows per transaction), then imports it again (every row skipped). Prints rows/s
 * of both runs, the CPU time they took (a figure the other processes of a busy machine do not
 * change much) and the process's peak RSS, sampled every 50 ms: memory must not grow with the file.
 *
 * Run: npm run bench -- import        (BENCH_ROWS=1000000 for a larger file)
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/open.js';
import { createCliImporter } from '../src/cli/import.js';
import { createWorkspaceService } from '../src/workspaces/service.js';
import { createWorkspaceStore } from '../src/workspaces/store.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function writeCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('url,key,domain,title,tags,created\n');
  const tags = ['news', 'promo', 'docs', 'social', 'email'];
  const t0 = Date.parse('2024-01-01T00:00:00Z');
  for (let i = 0; i < rows; i++) {
    const line = `https://example.com/articles/${i}?ref=import,imp-${i.toString(36)},bench.example.com,Article ${i},"${tags[i % 5]},${tags[(i + 2) % 5]}",${new Date(t0 + i * 60_000).toISOString()}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function sampleRss() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  return { stop: () => (clearInterval(timer), Math.max(peak, process.memoryUsage().rss)) };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-bench-import-'));
  try {
    const file = join(dir, 'links.csv');
    await writeCsv(file, ROWS);
    const url = `file:${join(dir, 'bench.db')}`;
    const config = loadConfig({ DATABASE_URL: url, BASE_URL: 'http://localhost:3999', PORT: '3999', LOG_LEVEL: 'silent' });
    const database = await openDatabase(url);
    const ws = await createWorkspaceService(createWorkspaceStore(database.db)).createWorkspace({ name: 'Import bench', plan: 'enterprise' });
    const importer = createCliImporter(config, database);
    console.log(`${ROWS.toLocaleString('en')} rows, ${mb(statSync(file).size)} CSV; SQLite file; node ${process.version}`);
    const before = process.memoryUsage().rss;
    for (const label of ['first import', 're-run (all skipped)']) {
      const rss = sampleRss();
      const t = process.hrtime.bigint();
      const cpu = process.cpuUsage();
      const report = await importer.importCsv(ws, createReadStream(file), { dryRun: false, maxItems: 0 });
      const seconds = Number(process.hrtime.bigint() - t) / 1e9;
      const used = process.cpuUsage(cpu);
      const cpuSeconds = (used.user + used.system) / 1e6;
      const peak = rss.stop();
      const { created, skipped, rejected } = report.counts;
      console.log(
        `${label.padEnd(22)} ${seconds.toFixed(1).padStart(5)} s  ${Math.round(ROWS / seconds).toLocaleString('en').padStart(7)} rows/s  ` +
          `(CPU ${cpuSeconds.toFixed(1)} s)  created ${created} skipped ${skipped} rejected ${rejected}  RSS before ${mb(before)}, peak ${mb(peak)}`,
      );
      if (rejected) throw new Error(`rows rejected: ${JSON.stringify(report.items.slice(0, 3))}`);
    }
    await database.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

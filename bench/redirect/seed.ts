/**
 * The redirect benchmarks' data: a workspace and `count` links `k0`…`k<count-1>` on `go.bench`,
 * each with its own destination (bench/redirect.ts, bench/crash.ts).
 *
 * @example
 * const workspaceId = await seedLinks('file:/tmp/bench.db', 10_000);
 */
import { openDatabase } from '../../src/db/open.js';
import { createWorkspaceService } from '../../src/workspaces/service.js';
import { createWorkspaceStore } from '../../src/workspaces/store.js';
import { newId } from '../../src/ids.js';

export const BENCH_DOMAIN = 'go.bench';

export async function seedLinks(url: string, count: number): Promise<string> {
  const database = await openDatabase(url);
  const workspaces = createWorkspaceService(createWorkspaceStore(database.db), Date.now);
  const ws = await workspaces.createWorkspace({ name: 'Bench', plan: 'enterprise' });
  const now = Date.now();
  const rows = [];
  for (let i = 0; i < count; i++) {
    rows.push({
      id: newId('link', now),
      workspace_id: ws.id,
      domain: BENCH_DOMAIN,
      key: `k${i}`,
      key_lower: `k${i}`,
      url: `https://example.com/landing/${i}?utm_source=bench&utm_medium=wrk`,
      short_link: `https://${BENCH_DOMAIN}/k${i}`,
      archived: 0 as const,
      track_conversion: 0 as const,
      proxy: 0 as const,
      rewrite: 0 as const,
      do_index: 0 as const,
      public_stats: 0 as const,
      clicks: 0,
      leads: 0,
      conversions: 0,
      sales: 0,
      sale_amount: 0,
      created_at: now,
      updated_at: now,
    });
  }
  for (let i = 0; i < rows.length; i += 500) await database.db.insertInto('links').values(rows.slice(i, i + 500)).execute();
  await database.close();
  return ws.id;
}

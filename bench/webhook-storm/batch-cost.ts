/**
 * What the webhook work costs the click writer's transaction: CPU per 2,000-click batch of
 * `writeClickWebhookBatch` (webhooks/click-batches.ts) inside a SQLite transaction, for 1, 10 and
 * 100 webhooks covering every click; each transaction is rolled back so every batch starts alike.
 * CPU time of the process (the work is synchronous SQLite on one thread), not wall time: it holds
 * on a machine other work shares.
 *
 * @example
 * for (const r of await clickBatchCost([1, 100])) console.log(r.hooks, r.cpuMsPerBatch);
 */
import { openClickBench, benchClick } from '../redirect/click-db.js';
import { clickRouter, writeClickWebhookBatch } from '../../src/webhooks/click-batches.js';

const CLICKS = 2000;
const BATCHES = 20;

export async function clickBatchCost(hookCounts: readonly number[]): Promise<{ hooks: number; cpuMsPerBatch: number; bytes: number }[]> {
  const bench = await openClickBench(CLICKS);
  try {
    const rows = bench.links.map((l, i) => benchClick(bench, l, i));
    const out: { hooks: number; cpuMsPerBatch: number; bytes: number }[] = [];
    for (const hooks of hookCounts) {
      const ids = Array.from({ length: hooks }, (_, i) => `wh_bench${i}`);
      const route = clickRouter({ all: false, workspaces: [], links: [], routes: { workspaces: { [bench.workspaceId]: ids }, links: {} } })!;
      let bytes = 0;
      const run = async () => {
        await bench.database.db.transaction().execute(async (trx) => {
          await writeClickWebhookBatch(trx, rows, route, { now: Date.now() });
          bytes = Number((await trx.selectFrom('webhook_click_batches').select((eb) => eb.fn.sum<number>(eb.fn('length', ['payload'])).as('n')).executeTakeFirstOrThrow()).n);
          throw new RolledBack();
        }).catch((err) => {
          if (!(err instanceof RolledBack)) throw err;
        });
      };
      await run(); // warm-up
      const start = process.cpuUsage();
      for (let i = 0; i < BATCHES; i++) await run();
      const used = process.cpuUsage(start);
      out.push({ hooks, cpuMsPerBatch: (used.user + used.system) / 1000 / BATCHES, bytes });
    }
    return out;
  } finally {
    await bench.close();
  }
}

class RolledBack extends Error {}

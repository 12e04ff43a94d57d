/**
 * CPU of 2,000,000 `await`s in a process that served audited changes (an API write, a dashboard
 * form) against the same loop before any app was built. With the actor in AsyncLocalStorage the
 * first request installed promise hooks for the whole process and the loop cost ~3× more; with
 * the actor passed as an argument the two figures match. Prints both and their ratio.
 *
 *   npx tsx bench/audit-awaits/awaits.ts
 */
import { createTestApp } from '../../src/test-support/harness.js';
import { addUser, logIn, slugOf } from '../../src/dashboard/testing.js';

const N = 2_000_000;
async function loop(): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) await i;
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
const best = async () => Math.min(await loop(), await loop(), await loop());

const before = await best();
const t = await createTestApp();
const res = await t.inject({ method: 'POST', url: '/tags', payload: { name: 'bench-tag' } });
if (res.statusCode !== 201) throw new Error(`POST /tags: ${res.statusCode}`);
const browser = await logIn(t, await addUser(t, 'owner'));
await browser.get(`/dashboard/w/${await slugOf(t)}/settings/tags`);
await browser.post(`/dashboard/w/${await slugOf(t)}/settings/tags`, { name: 'bench-form-tag' });
const entries = await t.ctx.database.db.selectFrom('audit_log').select('action').execute();
const after = await best();
await t.close();
console.log(`audit entries written: ${entries.length} (${entries.map((e) => e.action).join(', ')})`);
console.log(`${N.toLocaleString('en')} awaits, CPU ms (best of 3): before the app ${before.toFixed(0)}, after audited requests ${after.toFixed(0)}, ratio ${(after / before).toFixed(2)}`);

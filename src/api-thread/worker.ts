/**
 * The API thread (front.ts starts it): its own connection to the database, the whole app
 * (`buildApp` with `apiThread`: API, dashboard, MCP, webhooks' outbox, imports, exports…) served
 * on a private Unix socket that only the front calls. Lowered to `API_THREAD_NICE`, so the kernel
 * gives the redirect thread the core first.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { buildApp } from '../app.js';
import { lowerThreadPriority } from '../thread-priority.js';
import { createReadiness } from '../health/readiness.js';
import type { ApiThreadData, FromApi, ToApi } from './messages.js';

const data = workerData as ApiThreadData;
const front = parentPort as MessagePort;
const send = (m: FromApi) => front.postMessage(m);
lowerThreadPriority(data.nice);

try {
  // The front migrated the database before starting this thread.
  const database = await openDatabase(data.databaseUrl, { migrate: false, pgSchema: data.pgSchema });
  const readiness = createReadiness('serving');
  const { app, ctx, modules } = await buildApp({
    config: data.config,
    database,
    logger: data.logger,
    readiness,
    apiThread: { front, log: data.logPort, changes: data.changePort, stats: data.stats },
  });
  front.on('message', (m: ToApi) => {
    if (m.type !== 'close') return;
    readiness.stopping();
    void (async () => {
      // Stops accepting, finishes the requests in flight, closes the modules (outbox, imports…).
      await app.close().catch((err) => console.error('waymark: the API thread did not close cleanly', err));
      await database.close().catch(() => undefined);
      data.changePort.close();
      send({ type: 'closed' });
      front.close();
    })();
  });
  const boot = await ctx.workspaces.ensureDefault(data.config.apiKey);
  await app.listen({ path: data.socketPath });
  // While no dashboard user exists, each start prints a fresh one-time setup address.
  const setupToken = data.issueSetupToken ? ((await modules.users.service.issueSetupToken().catch(() => null)) ?? undefined) : undefined;
  send({ type: 'ready', workspace: { id: boot.workspace.id, name: boot.workspace.name, slug: boot.workspace.slug }, createdKey: boot.createdKey, setupToken });
} catch (err) {
  send({ type: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  front.close();
}

/**
 * The contract fixture every event store test shares (tests only): a test app's metadata
 * database (SQLite, or PostgreSQL when DATABASE_URL says so) holding the workspaces and links a
 * store resolves link filters against, and its transactions; and the event log served over a
 * MessageChannel exactly as the app serves it (log/start.ts `serveEventLog`), reached through its
 * client (log/client.ts), with the main thread's `ConversionStore` beside it. So the contract runs
 * on each engine through the port, as the app calls it.
 *
 * @example
 * describeEventStoreContract('DuckDB', async () => servedLogFixture(await createTestApp(), { eventsUrl: 'duckdb' }));
 */
import { MessageChannel } from 'node:worker_threads';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { TestApp } from '../test-support/harness.js';
import { insertLink } from '../redirect/testing.js';
import type { EventStoreFixture } from './contract.js';
import type { ColumnEngine } from './column/column-engine.js';
import { serveEventLog, type EventLogOptions } from './log/start.js';
import { createEventLogClient, type EventLogClient, type LogPort } from './log/client.js';
import { createConversionStore } from './conversions.js';
import { eventStoreKind } from './store-kind.js';

export interface ServedLog {
  client: EventLogClient;
  close(): Promise<void>;
}

/** Serves the log `eventsUrl` names on the app's database over a MessageChannel, on an engine of the caller's when given. */
export async function serveLogInThread(t: TestApp, options: { eventsUrl: string; engine?: ColumnEngine }): Promise<ServedLog> {
  const channel = new MessageChannel();
  const config: EventLogOptions = {
    eventsUrl: options.eventsUrl, duckdbMemoryLimit: t.config.duckdbMemoryLimit, duckdbThreads: t.config.duckdbThreads,
    geoipDb: t.config.geoipDb, visitorIp: t.config.visitorIp, clickFoldIntervalMs: t.config.clickFoldIntervalMs,
    clickWriterNice: t.config.clickWriterNice, eventReadConcurrency: t.config.eventReadConcurrency, listenersModule: new URL('../click-listeners/index.js', import.meta.url).href,
  };
  const served = serveEventLog(channel.port2, { database: t.database, config, ownsDatabase: false, engine: options.engine });
  const client = createEventLogClient(channel.port1 as unknown as LogPort);
  served.catch((err) => client.fail(err instanceof Error ? err : new Error(String(err))));
  await client.describe();
  return {
    client,
    async close() {
      await client.close();
      await served;
      channel.port1.close();
      channel.port2.close();
    },
  };
}

/** The contract's fixture: the log served over the port (`eventsUrl`, default the SQL store) on the test app's database. */
export async function servedLogFixture(t: TestApp, options: { eventsUrl?: string; engine?: ColumnEngine } = {}): Promise<EventStoreFixture<Kysely<Database>>> {
  const eventsUrl = options.eventsUrl ?? 'sql';
  const log = await serveLogInThread(t, { eventsUrl, engine: options.engine });
  const conversions = createConversionStore(eventStoreKind({ eventsUrl }, t.database), t.database, log.client);
  const db = t.database.db;
  return {
    log: log.client,
    conversions,
    addWorkspace: async () => (await t.addWorkspace()).workspaceId,
    addLink: async (workspaceId, link) => {
      await insertLink(db, workspaceId, {
        id: link.id,
        domain: link.domain,
        key: link.key,
        url: 'https://example.com/landing',
        folder_id: link.folderId ?? null,
        disabled_at: link.disabled ? Date.now() : null,
      });
    },
    deleteLink: async (workspaceId, linkId) => {
      await db.deleteFrom('links').where('workspace_id', '=', workspaceId).where('id', '=', linkId).execute();
    },
    transaction: (fn) => db.transaction().execute((trx) => fn(trx)),
    // Clicks a transaction wrote reach the column store with the next fold (log/service.ts).
    settle: () => log.client.fold(),
    close: async () => {
      await log.close();
      await t.close();
    },
  };
}

/**
 * Process entry: config → listen (health and readiness only, health/starting-server.ts) →
 * database (migrations) → app → click writer → replay spilled clicks → serve. `GET /ready` says
 * which step runs (health/readiness.ts). On SIGTERM/SIGINT, within `CLICK_SHUTDOWN_GRACE_MS` (8 s,
 * under docker's 10): unready, stop accepting, finish requests in flight, commit buffered clicks,
 * spill to a file what cannot be committed in time (redirect/click-spill.ts), close the database,
 * exit 0 (1 if a click could be neither).
 */
import { loadConfig, ConfigError } from './config.js';
import { readEnvironment } from './env-files.js';
import { openDatabase } from './db/open.js';
import { buildApp } from './app.js';
import { startBanner } from './start-banner.js';
import { createReadiness } from './health/readiness.js';
import { listenWhileStarting, type StartingServer } from './health/starting-server.js';
import { startFront } from './api-thread/front.js';
import type { Config } from './config.js';
import type { Readiness } from './health/readiness.js';
import type { OpenDatabase } from './db/open.js';
import type { RedirectModule } from './redirect/module.js';
import { createLineLogger } from './log-line.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(readEnvironment(process.env));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`waymark: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  // The port answers from here on: /health 200, /ready 503 with the step, anything else 503.
  const readiness = createReadiness();
  const starting = await listenWhileStarting({ port: config.port, host: config.host, docsUrl: config.docsUrl, readiness });
  readiness.enter('migrations');
  const database = await openDatabase(config.databaseUrl);
  // API_THREAD: the API on a thread of its own behind the redirect's front (src/api-thread/); a
  // database in memory cannot be opened from a second thread.
  if (config.apiThread && database.capabilities.writerThread) return serveWithApiThread(config, database, readiness, starting);
  // Opens (and upgrades) the event store, starts the modules.
  readiness.enter('event store');
  const { app, ctx, modules } = await buildApp({ config, database, readiness, starting });
  // Signals are handled from here on: one that arrives while the process starts (the app's
  // modules already run: the event publisher may deliver) shuts it down like any other.
  const shutdown = onSignals({ config, readiness, redirect: modules.redirect, log: (fields, msg) => app.log.info(fields, msg), close: () => app.close(), database });

  readiness.enter('click writer');
  const boot = await ctx.workspaces.ensureDefault(config.apiKey);
  // The event log's thread loads the ~130 MB of GeoIP data that completing a click needs now, not
  // with the first click, which would otherwise wait about a second to be stored (and its answer
  // be held past CLICK_MAX_LAG_MS).
  await modules.redirect.startWriter();
  if (shutdown.stopping()) return;
  // Clicks an earlier shutdown could not commit in time are written before anything new.
  readiness.enter('spill replay');
  await modules.redirect.replaySpilledClicks();
  if (shutdown.stopping()) return;

  // The server listens already: Fastify only takes note (and closes it at shutdown).
  await app.listen({ port: config.port, host: config.host });
  if (shutdown.stopping()) return;
  starting.open();
  readiness.started();

  // While no dashboard user exists, each start prints a fresh one-time setup address.
  // Not a reason to stop serving: a full disk refuses the write (the next start issues one).
  const setupToken = (await modules.users.service.issueSetupToken().catch((err) => {
    console.error('waymark: no setup address this time (the database refused the write; the next start issues one):', err instanceof Error ? err.message : err);
    return null;
  })) ?? undefined;
  // stderr: stdout carries the JSON log alone, for a log shipper or `journalctl -o cat … | jq`.
  console.error(startBanner({ config, engine: database.engine, workspace: boot.workspace, createdKey: boot.createdKey, setupToken }));
}

/** The front's own lines in the app's JSON log form, on stdout beside the API thread's (Fastify's logger writes there too). */
function logInfo(config: Config, fields: Record<string, unknown>, msg: string): void {
  createLineLogger(config.logLevel, (line) => process.stdout.write(line), { pid: process.pid })('info', msg, fields);
}

/** The same start and shutdown with the API thread: the front holds the redirect, the thread the rest. */
async function serveWithApiThread(config: Config, database: OpenDatabase, readiness: Readiness, starting: StartingServer): Promise<void> {
  readiness.enter('event store');
  const front = await startFront({ config, database, starting, issueSetupToken: true });
  const { redirect } = front;
  const shutdown = onSignals({ config, readiness, redirect, log: (fields, msg) => logInfo(config, fields, msg), close: () => front.close(), database });
  readiness.enter('click writer');
  await redirect.startWriter();
  if (shutdown.stopping()) return;
  readiness.enter('spill replay');
  await redirect.replaySpilledClicks();
  if (shutdown.stopping()) return;
  starting.open();
  readiness.started();
  const { workspace, createdKey, setupToken } = front.boot;
  console.error(startBanner({ config, engine: database.engine, workspace, createdKey, setupToken }));
}

/**
 * SIGTERM/SIGINT: unready; held redirects go out now and clicks are committed until shortly before
 * the grace ends, then spilled (redirect/module.ts); `close` (the app, or the front and its API
 * thread) and the database; exit 1 if a click could be neither stored nor spilled.
 */
function onSignals(o: { config: Config; readiness: Readiness; redirect: Pick<RedirectModule, 'beginShutdown' | 'spillNow' | 'stats'>; log(fields: Record<string, unknown>, msg: string): void; close(): Promise<void>; database: OpenDatabase }): { stopping(): boolean } {
  let stopping = false;
  const lostAny = () => (o.redirect.stats().writer.lost > 0 ? 1 : 0);
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    o.readiness.stopping();
    const graceMs = o.config.clickShutdownGraceMs;
    o.log({ signal, graceMs }, 'shutting down');
    o.redirect.beginShutdown(Date.now() + graceMs);
    // Out of time (a request or the database hangs): spill what is still in memory, exit.
    const timer = setTimeout(() => {
      // 1 if clicks were already given up (a spill that failed: a full disk), whatever is left now.
      let code = lostAny();
      try {
        o.redirect.spillNow();
      } catch (err) {
        console.error('waymark: clicks could not be spilled at shutdown and are lost', err);
        code = 1;
      }
      console.error(`waymark: shutdown took longer than ${graceMs} ms (CLICK_SHUTDOWN_GRACE_MS), exiting`);
      process.exit(code);
    }, graceMs);
    timer.unref();
    try {
      await o.close();
      await o.database.close();
      process.exit(lostAny());
    } catch (err) {
      console.error('waymark: error during shutdown', err);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  return { stopping: () => stopping };
}

main().catch((err) => {
  console.error('waymark: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});

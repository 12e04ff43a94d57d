/**
 * Process entry: config → database → app → listen. On SIGTERM/SIGINT: stop accepting,
 * finish requests in flight, flush buffered clicks, close the database, exit 0.
 */
import { loadConfig, ConfigError } from './config.js';
import { openDatabase, isPostgresUrl } from './db/open.js';
import { buildApp } from './app.js';
import { startBanner } from './start-banner.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`waymark: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const database = await openDatabase(config.databaseUrl);
  const { app, ctx, modules } = await buildApp({ config, database });
  const boot = await ctx.workspaces.ensureDefault(config.apiKey);
  // The click writer (a worker thread reading ~130 MB of GeoIP data) starts now, not with the
  // first click, which would otherwise wait about a second to be written; starting, it folds the
  // clicks a crash left unfolded (click-fold.ts).
  modules.redirect.startWriter();

  await app.listen({ port: config.port, host: config.host });

  const engine = isPostgresUrl(config.databaseUrl) ? 'PostgreSQL' : `SQLite (${database.sqlitePath ?? ':memory:'})`;
  console.log(startBanner({ config, engine, workspace: boot.workspace, createdKey: boot.createdKey }));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      console.error('waymark: shutdown took longer than 30 s, exiting');
      process.exit(1);
    }, 30_000);
    timer.unref();
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (err) {
      console.error('waymark: error during shutdown', err);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error('waymark: failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});

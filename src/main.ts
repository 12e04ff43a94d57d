/**
 * Process entry: config → database → app → listen. On SIGTERM/SIGINT: stop accepting,
 * finish requests in flight, flush buffered clicks, close the database, exit 0.
 */
import { loadConfig, ConfigError } from './config.js';
import { openDatabase, isPostgresUrl } from './db/open.js';
import { buildApp } from './app.js';

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
  const lines = [
    '',
    `Waymark is running.`,
    `  API:            ${config.baseUrl}`,
    `  API reference:  ${config.baseUrl}/docs  (OpenAPI: ${config.baseUrl}/openapi.json)`,
    `  Short links:    ${config.shortLinkProtocol}://${config.shortDomain}/<key>`,
    `  Database:       ${engine}`,
    `  Workspace:      ${boot.workspace.id} (${boot.workspace.slug})`,
  ];
  if (boot.createdKey) {
    lines.push(
      `  API key:        ${boot.createdKey}`,
      `                  (shown once; only its hash is stored. Create more with: npx waymark keys create)`,
    );
  } else if (config.apiKey) {
    lines.push(`  API key:        the value of WAYMARK_API_KEY`);
  } else {
    lines.push(`  API key:        printed on first start; create another with: npx waymark keys create`);
  }
  lines.push(
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${boot.createdKey ?? config.apiKey ?? '<key>'}" ${config.baseUrl}/workspaces/${boot.workspace.id}`,
    '',
  );
  console.log(lines.join('\n'));

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

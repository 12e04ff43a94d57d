#!/usr/bin/env node
/**
 * Admin CLI for the configured database (DATABASE_URL): workspaces and API keys.
 *
 * @example
 * npx waymark workspaces create --name "Acme" --plan business
 * npx waymark keys create --workspace acme --scopes "links.read analytics.read"
 * npx waymark keys revoke key_01J… --workspace acme
 * npx waymark erase --ip 203.0.113.7
 * npx waymark users create --email ann@example.com --name Ann --workspace default --role owner
 * npx waymark import api --from https://api.dub.co --token dub_… --workspace acme --events
 * npx waymark import bitly --token … --workspace acme --domain-map bit.ly=go.acme.com
 * npx waymark backup /backups/waymark.db
 */
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from '../config.js';
import { readEnvironment } from '../env-files.js';
import { openDatabase } from '../db/open.js';
import { CLI } from '../audit/record.js';
import { createWorkspaceStore } from '../workspaces/store.js';
import { createWorkspaceService } from '../workspaces/service.js';
import { parseScopes, SCOPES } from '../workspaces/api-keys.js';
import { PLANS, type Plan } from '../workspaces/plans.js';
import { runExtraCommand, EXTRA_USAGE } from './extra.js';
import { runErase, ERASE_USAGE } from './erase.js';
import { runUsersCommand, USERS_USAGE } from './users.js';
import { runImportApi, IMPORT_API_USAGE } from './import-api.js';
import { runImportBitly, IMPORT_BITLY_USAGE } from './import-bitly.js';
import { runBackupCommand, BACKUP_USAGE } from './backup.js';
import { runImportCsv, IMPORT_USAGE } from './import.js';
import { runImportsCommand, IMPORTS_USAGE } from './imports.js';
import { runExport, EXPORT_USAGE } from './export.js';
import { VERSION } from '../version.js';

const USAGE = `Usage: waymark <command> [options]
       waymark --version

Commands:
  workspaces list
  workspaces create --name <name> [--slug <slug>] [--plan <plan>]
        plans: ${PLANS.join(', ')} (default: enterprise)
  keys list   --workspace <id|slug>
  keys create --workspace <id|slug> [--name <name>] [--scopes "<scope> ..."]
        scopes: ${SCOPES.join(' ')} (default: full access)
  keys revoke <keyId> --workspace <id|slug>
${EXTRA_USAGE}${ERASE_USAGE}${USERS_USAGE}${IMPORT_USAGE}${IMPORTS_USAGE}${IMPORT_API_USAGE}${IMPORT_BITLY_USAGE}${EXPORT_USAGE}${BACKUP_USAGE}
The database is the one DATABASE_URL names (default file:./data/waymark.db).`;

export async function runCli(
  argv: string[],
  out: (line: string) => void = console.log,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version') {
    out(VERSION);
    return 0;
  }
  // Commands with options of their own parse their arguments themselves.
  if (argv[0] === 'import' && argv[1] === 'csv') return withDatabase(env, (config, database) => runImportCsv({ argv: argv.slice(2), config, database, out }));
  if (argv[0] === 'imports' && argv[1] !== '--help') return withDatabase(env, (config, database) => runImportsCommand({ argv: argv.slice(1), config, database, out }));
  if (argv[0] === 'export' && argv[1] !== '--help') return withDatabase(env, (config, database) => runExport({ argv: argv.slice(1), config, database }));
  if (argv[0] === 'import' && (argv[1] === 'api' || argv[1] === 'bitly')) {
    if (argv.includes('--help') || argv.includes('-h')) {
      out(USAGE);
      return 0;
    }
    const run = argv[1] === 'api' ? runImportApi : runImportBitly;
    return withDatabase(env, (config, database) => run({ argv: argv.slice(2), config, database, env, out }));
  }
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      slug: { type: 'string' },
      plan: { type: 'string' },
      workspace: { type: 'string', short: 'w' },
      scopes: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      force: { type: 'boolean' },
      ip: { type: 'string' },
      click: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
    },
  });
  const [group, action, arg] = positionals;
  if (values.help || !group) {
    out(USAGE);
    return group ? 0 : 1;
  }
  const config = loadConfig(env);
  if (group === 'backup' || group === 'restore') {
    try {
      return await runBackupCommand({ group, file: action, databaseUrl: config.databaseUrl, eventsUrl: config.eventsUrl, force: values.force, out });
    } catch (err) {
      console.error(`waymark: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    }
  }
  const database = await openDatabase(config.databaseUrl);
  const workspaces = createWorkspaceService(createWorkspaceStore(database.db));
  const fail = (message: string): number => {
    console.error(`waymark: ${message}`);
    return 1;
  };
  const resolveWorkspace = async () => {
    if (!values.workspace) throw new Error('--workspace <id|slug> is required');
    const ws = await workspaces.findWorkspace(values.workspace);
    if (!ws) throw new Error(`workspace "${values.workspace}" not found`);
    return ws;
  };
  try {
    if (group === 'workspaces' && action === 'list') {
      for (const ws of await workspaces.listWorkspaces()) out(`${ws.id}\t${ws.slug}\t${ws.plan}\t${ws.name}`);
      return 0;
    }
    if (group === 'workspaces' && action === 'create') {
      if (!values.name) return fail('--name is required');
      const plan = (values.plan ?? 'enterprise') as Plan;
      if (!PLANS.includes(plan)) return fail(`unknown plan "${plan}"; one of: ${PLANS.join(', ')}`);
      const ws = await workspaces.createWorkspace({ name: values.name, slug: values.slug, plan }, CLI);
      const key = await workspaces.createKey(ws.id, { name: 'Default key' }, CLI);
      out(`Created workspace ${ws.id} (${ws.slug}, plan ${ws.plan})`);
      out(`API key (shown once): ${key.key}`);
      return 0;
    }
    if (group === 'keys' && action === 'list') {
      const ws = await resolveWorkspace();
      for (const k of await workspaces.listKeys(ws.id)) {
        const state = k.revoked_at ? 'revoked' : 'active';
        out(`${k.id}\t${k.partial_key}\t${state}\t${k.scopes ?? 'all'}\t${k.name}`);
      }
      return 0;
    }
    if (group === 'keys' && action === 'create') {
      const ws = await resolveWorkspace();
      const scopes = parseScopes(values.scopes);
      const key = await workspaces.createKey(ws.id, { name: values.name, scopes }, CLI);
      out(`Created key ${key.id} for ${ws.slug} (scopes: ${scopes?.join(' ') ?? 'all'})`);
      out(`API key (shown once): ${key.key}`);
      return 0;
    }
    if (group === 'keys' && action === 'revoke') {
      const ws = await resolveWorkspace();
      if (!arg) return fail('the key id to revoke is required');
      const done = await workspaces.revokeKey(ws.id, arg, CLI);
      if (!done) return fail(`no active key ${arg} in workspace ${ws.slug}`);
      out(`Revoked ${arg}`);
      return 0;
    }
    if (group === 'users') return await runUsersCommand({ database, action, arg, values, env, resolveWorkspace, out });
    if (group === 'erase') return await runErase({ config, database, ip: values.ip, click: values.click, out });
    const handled = await runExtraCommand({ config, database, group, action, arg, force: values.force, out });
    if (handled !== undefined) return handled;
    out(USAGE);
    return 1;
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err));
  } finally {
    await database.close();
  }
}

/** Opens the configured database for one command, reports its failure as `waymark: …` (exit 1), and closes it. */
async function withDatabase(
  env: Record<string, string | undefined>,
  run: (config: ReturnType<typeof loadConfig>, database: Awaited<ReturnType<typeof openDatabase>>) => Promise<number>,
): Promise<number> {
  const config = loadConfig(env);
  const database = await openDatabase(config.databaseUrl);
  try {
    return await run(config, database);
  } catch (err) {
    console.error(`waymark: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await database.close();
  }
}

// Run when executed directly (bin entry or `tsx src/cli/index.ts`), not when imported by tests.
const invoked = process.argv[1] ?? '';
if (/cli[\\/]index\.(ts|js)$/.test(invoked) || invoked.endsWith('/waymark')) {
  // The real environment with `<NAME>_FILE` secrets and `.env` (env-files.ts); tests pass their own.
  Promise.resolve()
    .then(() => runCli(process.argv.slice(2), console.log, readEnvironment(process.env)))
    .then(
      (code) => process.exit(code),
      (err) => {
        // A message, not a stack trace: a bad option or setting is the user's to fix (`--help`).
        console.error(`waymark: ${err instanceof Error ? err.message : String(err)}${err instanceof ConfigError ? '' : ' (waymark --help lists the commands)'}`);
        process.exit(1);
      },
    );
}

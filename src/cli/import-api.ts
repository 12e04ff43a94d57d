/**
 * `waymark import api --from <base URL> --token <key> --workspace <slug> [--events]
 * [--domain-map FROM=TO]… [--dry-run] [--report <file.csv>]`: copies a workspace from a service
 * that answers the published API (src/migration/run.ts). Progress lines go to stderr, the summary
 * to stdout, ending with every distinct rejection reason and its count.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import { createWorkspaceService } from '../workspaces/service.js';
import { createWorkspaceStore, type WorkspaceRow } from '../workspaces/store.js';
import { runApiImport } from '../migration/run.js';
import { parseDomainMap } from '../migration/domain-plan.js';
import { openRejectionReport, type RejectionReport } from '../migration/report.js';
import { describeSummary, type ImportSummary } from '../migration/tally.js';
import { CLI } from '../audit/record.js';
import { recordAlone } from '../audit/module.js';

export const IMPORT_API_USAGE = `  import api --from <base URL> --token <key> --workspace <id|slug> [--events]
             [--domain-map <FROM>=<TO>]... [--dry-run] [--report <file.csv>]
        copy domains (unverified), tags, folders, links and customers from a service that answers
        the published API (Dub, another Waymark); --events also copies clicks, leads and sales.
        Links on a shared domain of the source (dub.sh, dub.link, …) move to this installation's
        short domain with the same key, or where --domain-map says. --dry-run reads everything and
        writes nothing; --report writes one CSV row per rejected item.
        Run it again after an interruption: it continues and copies nothing twice.
        The key may also be given as WAYMARK_IMPORT_TOKEN.
`;

/** The flags every import command shares. */
export const SHARED_IMPORT_OPTIONS = {
  workspace: { type: 'string', short: 'w' },
  token: { type: 'string' },
  'domain-map': { type: 'string', multiple: true },
  'dry-run': { type: 'boolean' },
  report: { type: 'string' },
} as const;

export async function resolveImportWorkspace(database: OpenDatabase, idOrSlug: string | undefined): Promise<WorkspaceRow> {
  if (!idOrSlug) throw new Error('--workspace <id|slug> is required');
  const ws = await createWorkspaceService(createWorkspaceStore(database.db)).findWorkspace(idOrSlug);
  if (!ws) throw new Error(`workspace "${idOrSlug}" not found`);
  return ws;
}

/**
 * Runs `run` with the report file open when one is asked for (closed, so complete, also when the
 * run fails), then prints the summary.
 */
export async function withReport(file: string | undefined, out: (line: string) => void, run: (report: RejectionReport | undefined) => Promise<ImportSummary>): Promise<number> {
  const report = file ? openRejectionReport(file) : undefined;
  let summary: ImportSummary;
  try {
    summary = await run(report);
  } finally {
    await report?.close();
  }
  for (const line of describeSummary(summary)) out(line);
  if (file) out(`Rejected items: ${file}`);
  return 0;
}

/** What an import command is run with: its own arguments, the installation, where lines go. */
export interface ImportCommandInput {
  argv: string[];
  config: Config;
  database: OpenDatabase;
  env: Record<string, string | undefined>;
  out: (line: string) => void;
  progress?: (line: string) => void;
  fetch?: typeof fetch;
}

/** The token (`--token`, else WAYMARK_IMPORT_TOKEN), the domain map and the progress writer every import takes. */
export function importSettings(input: ImportCommandInput, values: { token?: string; 'domain-map'?: string[] }, tokenName: string) {
  const token = values.token ?? input.env.WAYMARK_IMPORT_TOKEN;
  if (!token) throw new Error(`--token <${tokenName}> (or WAYMARK_IMPORT_TOKEN) is required`);
  return {
    token,
    domainMap: parseDomainMap(values['domain-map'] ?? []),
    progress: input.progress ?? ((line: string) => process.stderr.write(`import: ${line}\n`)),
  };
}

export async function runImportApi(input: ImportCommandInput): Promise<number> {
  const { values } = parseArgs({ args: input.argv, options: { ...SHARED_IMPORT_OPTIONS, from: { type: 'string' }, events: { type: 'boolean' } } });
  const workspace = await resolveImportWorkspace(input.database, values.workspace);
  if (!values.from) throw new Error('--from <base URL> is required (e.g. https://api.dub.co)');
  const { token, domainMap, progress } = importSettings(input, values, 'key');
  return withReport(values.report, input.out, async (report) =>
    recordImport(
      input.database,
      workspace.id,
      { source: 'api', from: new URL(values.from!).host },
      await runApiImport({
        database: input.database,
        config: input.config,
        workspace,
        source: { baseUrl: values.from!, token, fetch: input.fetch },
        events: values.events,
        domainMap,
        dryRun: values['dry-run'],
        report,
        progress,
      }),
    ),
  );
}

/**
 * The audit entry of an import from another service (`import api`, `import bitly`): one
 * `workspace.import` in the workspace, actor the command line, with the source's host (never the
 * token) and what was copied; none for a dry run. Written when the import ends, in a transaction
 * of its own (the import itself is many). Returns the summary for the caller to print.
 */
export async function recordImport(database: OpenDatabase, workspaceId: string, source: { source: 'api' | 'bitly'; from: string }, summary: ImportSummary): Promise<ImportSummary> {
  if (summary.dryRun) return summary;
  const { domains, tags, folders, links, customers, events } = summary;
  await recordAlone(database, CLI, { workspaceId, action: 'workspace.import', targetIds: workspaceId, changes: { ...source, domains, tags, folders, links, customers, ...(events ? { events } : {}) } });
  return summary;
}

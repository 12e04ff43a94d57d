/**
 * `waymark import api --from <base URL> --token <key> --workspace <slug> [--events]`: copies a
 * workspace from a service that answers the published API (src/migration/run.ts). Progress lines
 * go to stderr, the summary to stdout.
 */
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { runApiImport, type ApiImportSummary } from '../migration/run.js';

export const IMPORT_API_USAGE = `  import api --from <base URL> --token <key> --workspace <id|slug> [--events]
        copy domains (unverified), tags, folders, links and customers from a service that answers
        the published API (Dub, another Waymark); --events also copies clicks, leads and sales.
        Run it again after an interruption: it continues and copies nothing twice.
        The key may also be given as WAYMARK_IMPORT_TOKEN.
`;

export async function runImportApi(input: {
  config: Config;
  database: OpenDatabase;
  workspace: WorkspaceRow;
  from?: string;
  token?: string;
  events?: boolean;
  out: (line: string) => void;
  progress?: (line: string) => void;
  fetch?: typeof fetch;
}): Promise<number> {
  if (!input.from) throw new Error('--from <base URL> is required (e.g. https://api.dub.co)');
  if (!input.token) throw new Error('--token <key> (or WAYMARK_IMPORT_TOKEN) is required');
  const progress = input.progress ?? ((line: string) => process.stderr.write(`import: ${line}\n`));
  const summary = await runApiImport({
    database: input.database,
    config: input.config,
    workspace: input.workspace,
    source: { baseUrl: input.from, token: input.token, fetch: input.fetch },
    events: input.events,
    progress,
  });
  for (const line of describeSummary(summary)) input.out(line);
  return 0;
}

/** The summary as lines: one per resource and event kind. */
export function describeSummary(s: ApiImportSummary): string[] {
  const lines = (['domains', 'tags', 'folders', 'links', 'customers'] as const).map(
    (k) => `${k}: ${s[k].created} copied, ${s[k].existing} already there, ${s[k].rejected} rejected`,
  );
  if (s.events) {
    for (const k of ['clicks', 'leads', 'sales'] as const) {
      lines.push(`${k}: ${s.events[k].written} copied, ${s.events[k].skipped} already there, ${s.events[k].unattributed} without a copied link`);
    }
  }
  return lines;
}

/**
 * `waymark import csv <file> --workspace <slug> [--dry-run] [--map field=Header]…`: the CSV import
 * of `POST /links/import` from the command line, through the same import service, streaming the
 * file. Rejected rows are printed as they are met (line and message); the counts at the end.
 *
 * @example
 * npx waymark import csv bitly-export.csv --workspace acme --dry-run
 * npx waymark import csv links.csv -w acme --map "url=Where to" --map "key=Back half"
 */
import { CLI } from '../audit/record.js';
import { recordAlone } from '../audit/module.js';
import { importEntry } from '../imports/service.js';
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import { ApiError } from '../http/errors.js';
import { parseMappingPairs } from '../imports/layouts.js';
import type { ImportReport } from '../imports/service.js';
import { createStandaloneImporter } from '../imports/standalone.js';
import { createWorkspaceService } from '../workspaces/service.js';
import { createWorkspaceStore } from '../workspaces/store.js';

export const IMPORT_USAGE = `  import csv <file> --workspace <id|slug> [--dry-run] [--map <field>=<Header>]...
        import links from a CSV export (Dub, Bitly, Shlink, YOURLS, Kutt or a url/key/domain/title/tags
        header); fields: url key domain shortLink title description tags createdAt externalId
`;

/** The import service on an open database, without the HTTP app (no limits: the operator's own files). */
export function createCliImporter(config: Config, database: OpenDatabase) {
  return createStandaloneImporter(config, database);
}

export async function runImportCsv(input: { argv: string[]; config: Config; database: OpenDatabase; out: (line: string) => void; err?: (line: string) => void }): Promise<number> {
  const { positionals, values } = parseArgs({
    args: input.argv,
    allowPositionals: true,
    options: { workspace: { type: 'string', short: 'w' }, 'dry-run': { type: 'boolean' }, map: { type: 'string', multiple: true } },
  });
  const [file] = positionals;
  if (!file) throw new Error('the CSV file is required: waymark import csv <file> --workspace <slug>');
  if (!values.workspace) throw new Error('--workspace <id|slug> is required');
  const ws = await createWorkspaceService(createWorkspaceStore(input.database.db)).findWorkspace(values.workspace);
  if (!ws) throw new Error(`workspace "${values.workspace}" not found`);
  const err = input.err ?? ((line: string) => console.error(line));
  const started = Date.now();
  let report: ImportReport & { layout: string };
  try {
    report = await createCliImporter(input.config, input.database).importCsv(ws, createReadStream(file), {
      dryRun: !!values['dry-run'],
      mapping: parseMappingPairs(values.map ?? []),
      maxItems: 0,
      onItem: (item) => {
        if (item.status === 'rejected') err(`line ${item.line}: ${item.error}`);
      },
    });
  } catch (e) {
    if (e instanceof ApiError) throw new Error(e.message);
    throw e;
  }
  if (!report.dryRun) await recordAlone(input.database, CLI, importEntry(ws.id, report));
  const { rows, created, skipped, rejected } = report.counts;
  const seconds = (Date.now() - started) / 1000;
  input.out(
    `${report.dryRun ? 'Dry run: would create' : 'Created'} ${created}, skipped ${skipped}, rejected ${rejected} of ${rows} rows ` +
      `(layout ${report.layout}, ${seconds.toFixed(1)} s, ${Math.round(rows / Math.max(seconds, 0.001))} rows/s)`,
  );
  if (report.tagsCreated.length) input.out(`Tags ${report.dryRun ? 'to create' : 'created'}: ${report.tagsCreated.join(', ')}`);
  if (report.domainsCreated.length) input.out(`Domains ${report.dryRun ? 'to add' : 'added'} (unverified): ${report.domainsCreated.join(', ')}`);
  return rejected ? 2 : 0;
}

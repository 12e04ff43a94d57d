/**
 * `waymark import bitly --token <access token> --workspace <slug> [--group <guid>]
 * [--domain-map FROM=TO]… [--dry-run] [--report <file.csv>]`: copies a Bitly account's links
 * through Bitly's API v4 (src/migration/bitly.ts). Progress lines go to stderr, the summary to
 * stdout. A Bitly CSV export is imported with `waymark import csv` instead.
 */
import { parseArgs } from 'node:util';
import { runBitlyImport } from '../migration/bitly.js';
import { importSettings, recordImport, resolveImportWorkspace, SHARED_IMPORT_OPTIONS, withReport, type ImportCommandInput } from './import-api.js';

export const IMPORT_BITLY_USAGE = `  import bitly --token <access token> --workspace <id|slug> [--group <guid>]
             [--domain-map <FROM>=<TO>]... [--dry-run] [--report <file.csv>]
        copy a Bitly account through its API v4: the groups' branded domains (unverified), tags,
        and every bitlink (custom back-halves and the hash link, titles, tags, archived) with
        its click total as the link's counter. Links on bit.ly move to this installation's short
        domain with the same key, or where --domain-map says (e.g. bit.ly=go.example.com).
        Without --group every group the token sees is copied. Run it again after an
        interruption: it continues and copies nothing twice. The token may also be given as
        WAYMARK_IMPORT_TOKEN. (A Bitly CSV export goes through import csv.)
`;

export async function runImportBitly(input: ImportCommandInput): Promise<number> {
  const { values } = parseArgs({ args: input.argv, options: { ...SHARED_IMPORT_OPTIONS, group: { type: 'string' }, from: { type: 'string' } } });
  const workspace = await resolveImportWorkspace(input.database, values.workspace);
  const { token, domainMap, progress } = importSettings(input, values, 'Bitly access token');
  return withReport(values.report, input.out, async (report) =>
    recordImport(input.database, workspace.id, { source: 'bitly', from: values.from ? new URL(values.from).host : 'api-ssl.bitly.com' }, await runBitlyImport({
      database: input.database,
      config: input.config,
      workspace,
      token,
      // Bitly's own unless given: a proxy, or a test server.
      baseUrl: values.from,
      group: values.group,
      domainMap,
      dryRun: values['dry-run'],
      report,
      progress,
      fetch: input.fetch,
    })),
  );
}

/**
 * `waymark imports list|resume|undo`: the import jobs of a workspace (imports over HTTP: the API,
 * the dashboard) from the command line, on the same job store: what each imported, which were
 * interrupted and how to complete them.
 *
 * @example
 * npx waymark imports list --workspace acme
 * npx waymark imports resume imp_0123… --workspace acme
 * npx waymark imports undo imp_0123… --workspace acme
 */
import { parseArgs } from 'node:util';
import { CLI } from '../audit/record.js';
import type { Config } from '../config.js';
import { createChangeBus } from '../db/change-bus.js';
import type { OpenDatabase } from '../db/open.js';
import { ApiError } from '../http/errors.js';
import { createJobRunner } from '../imports/job-runner.js';
import { createImportJobs, spoolDirOf, type ImportJob } from '../imports/jobs.js';
import { createStandaloneImporter } from '../imports/standalone.js';
import { createLinkService } from '../links/service.js';
import { createLinkStore } from '../links/store.js';
import { createWorkspaceService } from '../workspaces/service.js';
import { createWorkspaceStore } from '../workspaces/store.js';

export const IMPORTS_USAGE = `  imports list --workspace <id|slug>
        the workspace's recent imports: state, rows read, links created, skipped, rejected
  imports resume <importId> --workspace <id|slug>
        completes an interrupted import from its kept file (rows already imported are not repeated)
  imports undo <importId> --workspace <id|slug>
        deletes the links an import created
`;

/** One job as a line (and, when it stopped, why and what to do). */
export function describeJob(job: ImportJob, workspace: string): string[] {
  const c = job.counts;
  const lines = [`${job.id}  ${job.state.padEnd(11)} ${job.createdAt}  read ${c.rows}, created ${c.created}, skipped ${c.skipped}, rejected ${c.rejected}${job.state === 'undone' ? `, ${job.undone} deleted by undo` : ''}`];
  if (job.error && job.state !== 'completed') lines.push(`    ${job.error}`);
  if (job.resumable) lines.push(`    complete it: waymark imports resume ${job.id} --workspace ${workspace}`);
  else if (job.state === 'interrupted') lines.push('    its file did not arrive whole: import the file again (rows already imported are skipped)');
  if (job.undoable && job.state !== 'completed') lines.push(`    or remove what it created: waymark imports undo ${job.id} --workspace ${workspace}`);
  return lines;
}

export async function runImportsCommand(input: { argv: string[]; config: Config; database: OpenDatabase; out: (line: string) => void }): Promise<number> {
  const { positionals, values } = parseArgs({ args: input.argv, allowPositionals: true, options: { workspace: { type: 'string', short: 'w' } } });
  const [action, id] = positionals;
  if (!values.workspace) throw new Error('--workspace <id|slug> is required');
  const ws = await createWorkspaceService(createWorkspaceStore(input.database.db)).findWorkspace(values.workspace);
  if (!ws) throw new Error(`workspace "${values.workspace}" not found`);
  const { config, database } = input;
  const jobs = createImportJobs(database.db, { spoolDir: spoolDirOf(config, database), staleMs: config.importStaleMs });
  if (action === 'list') {
    const all = await jobs.list(ws.id);
    if (!all.length) input.out('No imports.');
    for (const job of all) for (const line of describeJob(job, values.workspace)) input.out(line);
    return 0;
  }
  if ((action !== 'resume' && action !== 'undo') || !id) throw new Error('usage: waymark imports list|resume <importId>|undo <importId> --workspace <id|slug>');
  const bus = createChangeBus();
  const links = createLinkService({ db: database.db, dialect: database.dialect, store: createLinkStore(database.db, database.dialect), bus, now: Date.now, config });
  const runner = createJobRunner({ jobs, importer: createStandaloneImporter(config, database, { bus }), links, database });
  try {
    if (action === 'resume') {
      const report = await runner.resume(ws, id, { maxItems: 0 }, CLI);
      const c = report.counts;
      input.out(`Completed ${id}: read ${c.rows}, created ${c.created}, skipped ${c.skipped}, rejected ${c.rejected}`);
    } else {
      const job = await runner.undo(ws, id, CLI);
      input.out(`Undone ${id}: ${job.undone} links deleted`);
    }
  } catch (e) {
    if (e instanceof ApiError) throw new Error(e.message);
    throw e;
  }
  return 0;
}

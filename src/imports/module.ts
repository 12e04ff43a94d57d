/**
 * Imports module: `POST /links/import` (CSV), and the import service the CLI reuses (`importLinks`
 * takes parsed link inputs from any source). Imports sent over HTTP (the API, the dashboard:
 * `requests`) run on the import thread (import-thread.ts) when the database can be opened from a
 * thread (a SQLite file, PostgreSQL); on `:memory:` they run in process, in time slices. A
 * workspace runs at most two at a time (limits.ts, `perWorkspace`). `lifecycle.close` waits for
 * the thread's batches in flight and stops it. Real imports over HTTP are recorded jobs
 * (jobs.ts, job-runner.ts): listed, resumed and undone at `/imports` (job-routes.ts).
 */
import { recordAlone } from '../audit/module.js';
import type { OpenDatabase } from '../db/open.js';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Lifecycle } from '../lifecycle.js';
import type { DomainsModule } from '../domains/module.js';
import type { LinksModule } from '../links/module.js';
import type { TagsModule } from '../tags/module.js';
import { createImportService, importEntry, type CsvImporter } from './service.js';
import { createImportThread } from './import-thread.js';
import { importRoutes } from './routes.js';
import { perWorkspace } from './limits.js';
import { createImportJobs, createJobWriter, spoolDirOf } from './jobs.js';
import { createJobRunner } from './job-runner.js';
import { importJobRoutes } from './job-routes.js';
import { inSpan, type Traces } from '../tracing/traces.js';

/**
 * The import thread's nice value (Linux): the lowest. An import is bulk work nobody waits for by
 * the millisecond; while the cores are busy, redirects and the click writer (CLICK_WRITER_NICE)
 * run first and the import takes what they leave.
 */
const IMPORT_THREAD_NICE = 19;

export function createImportsModule(ctx: AppContext, deps: { links: LinksModule; tags: TagsModule; domains: DomainsModule }) {
  const { config, database } = ctx;
  const requestLimits = { maxRows: config.importMaxRows, maxBytes: config.importMaxBytes };
  const service = createImportService({ links: deps.links.service, tags: deps.tags.service, domains: deps.domains.service, shortDomain: config.shortDomain, requestLimits, jobWriter: (id) => createJobWriter(database.db, id) });
  const thread = database.capabilities.writerThread
    ? createImportThread({ url: database.url, pgSchema: database.pgSchema, nice: IMPORT_THREAD_NICE, config }, { bus: ctx.bus, requestLimits })
    : undefined;
  const requests: CsvImporter = traced(audited(perWorkspace(thread ?? service), database), ctx.traces);
  const jobs = createImportJobs(database.db, { spoolDir: spoolDirOf(config, database), staleMs: config.importStaleMs });
  const runner = createJobRunner({ jobs, importer: requests, links: deps.links.service, database });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(importRoutes, { imports: requests, runner });
    await app.register(importJobRoutes, { runner });
  };
  const lifecycle: Lifecycle = { close: () => thread?.close() };
  return { routes, service, requests, runner, lifecycle };
}
export type ImportsModule = ReturnType<typeof createImportsModule>;

/**
 * An import is one audit entry (`links.import`, with its counts), written when it ends: its
 * batches are many transactions, and the tags, domains and links it creates are not entries of
 * their own (its writes carry no `Who`). A dry run changes nothing.
 */
function audited(importer: CsvImporter, database: OpenDatabase): CsvImporter {
  return {
    requestLimits: importer.requestLimits,
    async importCsv(ws, csv, options, who) {
      const report = await importer.importCsv(ws, csv, options);
      if (!report.dryRun) await recordAlone(database, who, importEntry(ws.id, report));
      return report;
    },
  };
}

/**
 * A span per import sent over HTTP or resumed (`import.run`, on the main thread whether the rows
 * are written on the import thread or here): from the first row read to the report.
 */
function traced(importer: CsvImporter, traces: Traces): CsvImporter {
  if (!traces.enabled) return importer;
  return {
    requestLimits: importer.requestLimits,
    importCsv: (ws, csv, options, who) =>
      inSpan(traces, 'import.run', { attributes: { 'waymark.workspace_id': ws.id, 'waymark.import.dry_run': options.dryRun, 'waymark.import.job_id': options.job?.id, 'waymark.import.resumed': !!options.job?.resume } }, async (span) => {
        const report = await importer.importCsv(ws, csv, options, who);
        const { rows, created, skipped, rejected } = report.counts;
        span.set({ 'waymark.import.layout': report.layout, 'waymark.import.rows': rows, 'waymark.import.created': created, 'waymark.import.skipped': skipped, 'waymark.import.rejected': rejected });
        return report;
      }),
  };
}

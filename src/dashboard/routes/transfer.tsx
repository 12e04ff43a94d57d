/**
 * Import and export in the dashboard (issue 18), through the API's own services:
 *
 * - `GET|POST /dashboard/w/<slug>/links/import`: the upload form and the import's report
 *   (`imports.importCsv`, as `POST /links/import`), and the recent imports with their state and
 *   counts; owners and members (`links.write`).
 * - `POST /dashboard/w/<slug>/links/imports/<id>/resume|undo`: resumes an interrupted import or
 *   undoes one (the import jobs of imports/job-runner.ts).
 * - `GET /dashboard/w/<slug>/links/export`, `/events/export`: the same downloads as the API's
 *   exports (`exports/send.ts`) for the session's workspace, with the API's query schemas and
 *   plan rule. Every role may download. (`/analytics/export` is routes/analytics.tsx's.)
 *
 * The upload streams as `POST /links/import`'s does (imports/spool.ts), with its caps
 * (IMPORT_MAX_BYTES, IMPORT_MAX_ROWS): the body's parser reads the small fields the form sends
 * before the file (the CSRF token, the dry run box), so the CSRF check runs before any of the
 * file is read, and hands the file over as the stream of the rest of the body. A real import is a
 * recorded job: once the file is received whole it runs to the end even if the browser goes away.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { assertPlan } from '../../access/auth.js';
import type { CsvImporter } from '../../imports/service.js';
import type { JobRunner } from '../../imports/job-runner.js';
import { publicJob } from '../../imports/jobs.js';
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { boundaryOf, csvFileContent, multipartParts } from '../../imports/multipart.js';
import { assertDeclaredSize } from '../../imports/limits.js';
import { spoolBody } from '../../imports/spool.js';
import { clientGone } from '../../http/client-gone.js';
import type { ExportService } from '../../exports/service.js';
import { EventsExportQuery, LinksExportQuery } from '../../exports/schema.js';
import { folderView, linkView } from '../folder-view.js';
import { sendEventsExport, sendLinksExport } from '../../exports/send.js';
import { parseInput } from '../../users/schema.js';
import { HIDDEN, sendPage, type Kit } from '../kit.js';
import { ImportPage } from '../pages/import.js';
import { apiCallerOf } from '../services.js';
import { callerOf } from './link-choices.js';

type Upload = {
  _csrf?: string;
  dryRun?: string;
  file?: AsyncIterable<Buffer>;
  /** Stops receiving the body (and drops its temporary file): called once the answer is out. */
  release(): void;
};
type Params = { slug: string };

/** The form's fields before the file are short: a token and a box. */
const MAX_FIELD_BYTES = 1024;
const MAX_FIELDS = 8;
/** Rows the report page lists (the counts cover all): rendering a thousand rows held the loop ~100 ms. */
const REPORT_ROWS = 200;
/** Imports the page lists. */
const RECENT_JOBS = 20;

/**
 * The fields before the `file` part, and the file as the stream of the rest of the body (only the
 * file part's content). A body without a file part gives no `file`.
 */
async function readUpload(body: AsyncIterable<Buffer>, boundary: string): Promise<Upload> {
  const parts = multipartParts(body, boundary);
  const upload: Upload = { release: () => void parts.return(undefined).catch(() => undefined) };
  try {
    for (let fields = 0; ; fields++) {
      const next = await parts.next();
      if (next.done) return upload;
      const part = next.value;
      if (part.name === 'file') {
        // A file part cut at a limit throws its error when read (after the CSRF check), never imports cut.
        upload.file = csvFileContent(part);
        return upload;
      }
      if (fields >= MAX_FIELDS) throw new ApiError('bad_request', 'Malformed upload: too many fields before the file.');
      const value = await part.text(MAX_FIELD_BYTES);
      if (part.name === '_csrf' || part.name === 'dryRun') upload[part.name] = value;
    }
  } catch (err) {
    upload.release();
    throw err;
  }
}

/** The file as it came, or undefined when it has no bytes (the form was sent without one). */
async function nonEmpty(file: AsyncIterable<Buffer> | undefined): Promise<AsyncIterable<Buffer> | undefined> {
  if (!file) return undefined;
  const it = file[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.length === 0) first = await it.next();
  if (first.done) return undefined;
  const head = first.value;
  return (async function* () {
    yield head;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  })();
}

/**
 * The uploaded file copied whole into the job's kept file (the upload was spooled already, so this
 * is a copy on disk), then read back from it: once the copy is done the import no longer depends
 * on the browser, and an interrupted one can be resumed.
 */
async function* keptThenRead(file: AsyncIterable<Buffer>, path: string, uploaded: () => void): AsyncGenerator<Buffer> {
  await pipeline(Readable.from(file), createWriteStream(path, { mode: 0o600 }));
  uploaded();
  yield* createReadStream(path) as AsyncIterable<Buffer>;
}

export function transferRoutes(kit: Kit, imports: CsvImporter, jobs: JobRunner, exports: ExportService): FastifyPluginAsync {
  return async (app) => {
    // Only this plugin's routes take multipart bodies: the fields before the file, the file as a stream.
    const { maxBytes, maxRows } = imports.requestLimits;
    app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
      const boundary = boundaryOf(request.headers['content-type']);
      if (!boundary) return done(new ApiError('bad_request', 'Malformed multipart body: the Content-Type has no boundary.'));
      try {
        assertDeclaredSize(request.headers['content-length'], maxBytes);
      } catch (err) {
        return done(err as ApiError);
      }
      readUpload(spoolBody(payload, { maxBytes }), boundary).then(
        (upload) => done(null, upload),
        (err: Error) => done(err),
      );
    });

    // Whether the import ran or the request was refused before it (CSRF, role), the body is done with.
    app.addHook('onResponse', async (request) => {
      const body = request.body as Partial<Upload> | undefined;
      if (typeof body?.release === 'function') body.release();
    });

    const recent = async (workspaceId: string) => (await jobs.jobs.list(workspaceId, RECENT_JOBS)).map(publicJob);

    app.get<{ Params: Params }>('/dashboard/w/:slug/links/import', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      return sendPage(reply, <ImportPage frame={{ ...page.frame, workspace: page.frame.workspace! }} jobs={await recent(page.workspace.id)} />);
    });

    // Resume or undo a recorded import (owners and members); the page answers with the outcome and the list.
    app.post<{ Params: Params & { importId: string; action: string } }>('/dashboard/w/:slug/links/imports/:importId/:action', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      const { importId, action } = request.params;
      if (action !== 'resume' && action !== 'undo') throw new ApiError('not_found', 'There is no page at this address.');
      try {
        if (action === 'resume') {
          const report = await jobs.resume(page.workspace, importId, { userId: page.userId, maxRows, maxItems: REPORT_ROWS }, page.who);
          return sendPage(reply, <ImportPage frame={frame} report={report} jobs={await recent(page.workspace.id)} />);
        }
        const job = await jobs.undo(page.workspace, importId, page.who);
        return sendPage(reply, <ImportPage frame={frame} notice={`Import undone: ${job.undone} links deleted.`} jobs={await recent(page.workspace.id)} />);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        return sendPage(reply, <ImportPage frame={frame} error={err.message} jobs={await recent(page.workspace.id)} />, err.status);
      }
    });

    app.post<{ Params: Params; Body: Upload | Record<string, string> }>('/dashboard/w/:slug/links/import', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      const body = request.body as Upload | undefined;
      try {
        const file = await nonEmpty(body?.file);
        if (!file) return sendPage(reply, <ImportPage frame={frame} error="Choose a CSV file to import." />, 422);
        const options = { userId: page.userId, maxRows, maxItems: REPORT_ROWS };
        const report =
          body?.dryRun === 'true'
            ? await imports.importCsv(page.workspace, file, { ...options, dryRun: true, signal: clientGone(reply) }, page.who)
            : await jobs.start(
                page.workspace,
                { source: 'dashboard', contentType: 'text/csv', mapping: {}, createdBy: page.userId },
                (job, uploaded) => keptThenRead(file, job.spoolPath!, uploaded),
                { ...options, clientGone: clientGone(reply) },
                page.who,
              );
        return sendPage(reply, <ImportPage frame={frame} report={report} jobs={await recent(page.workspace.id)} />);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        return sendPage(reply, <ImportPage frame={frame} error={err.message} jobs={await recent(page.workspace.id)} />, err.status);
      }
    });

    app.get<{ Params: Params; Querystring: unknown }>('/dashboard/w/:slug/links/export', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const q = parseInput(LinksExportQuery, request.query);
      return sendLinksExport(reply, exports, callerOf(page), q, linkView(q.folderId));
    });

    app.get<{ Params: Params; Querystring: unknown }>('/dashboard/w/:slug/events/export', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const auth = apiCallerOf(page);
      assertPlan(auth, 'business', 'The events export');
      const { query, view } = folderView(parseInput(EventsExportQuery, request.query));
      return sendEventsExport(reply, exports, auth, page.who, query, view);
    });

  };
}

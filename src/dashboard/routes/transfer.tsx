/**
 * Import and export in the dashboard (issue 18), through the API's own services:
 *
 * - `GET|POST /dashboard/w/<slug>/links/import`: the upload form and the import's report
 *   (`imports.importCsv`, as `POST /links/import`); owners and members (`links.write`).
 * - `GET /dashboard/w/<slug>/links/export`, `/events/export`, `/analytics/export`: the same
 *   downloads as the API's exports (`exports/send.ts`) for the session's workspace, with the
 *   API's query schemas and plan rule. Every role may download.
 *
 * The upload is read whole (up to `MAX_DASHBOARD_UPLOAD_BYTES`) because the CSRF field travels
 * inside the multipart body and is checked before the handler runs; larger files go through
 * `POST /links/import` or the CLI, which stream.
 */
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { assertPlan } from '../../http/auth.js';
import type { ImportService } from '../../imports/service.js';
import { boundaryOf, multipartField } from '../../imports/multipart.js';
import type { ExportService } from '../../exports/service.js';
import { AnalyticsExportQuery, EventsExportQuery, LinksExportQuery } from '../../exports/schema.js';
import { folderView, linkView } from '../folder-view.js';
import { sendAnalyticsExport, sendEventsExport, sendLinksExport } from '../../exports/send.js';
import { parseInput } from '../../users/schema.js';
import { HIDDEN, sendPage, type Kit } from '../kit.js';
import { ImportPage } from '../pages/import.js';
import { apiCallerOf } from '../services.js';
import { callerOf } from './link-choices.js';

export const MAX_DASHBOARD_UPLOAD_BYTES = 16 * 1024 * 1024;

type Upload = { _csrf?: string; dryRun?: string; file: Buffer };
type Params = { slug: string };

async function fieldOf(body: Buffer, boundary: string, name: string): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of multipartField(Readable.from([body]), boundary, name)) parts.push(Buffer.from(chunk));
  } catch (err) {
    if (err instanceof ApiError && /has no "/.test(err.message)) return undefined;
    throw err;
  }
  return Buffer.concat(parts);
}

export function transferRoutes(kit: Kit, imports: ImportService, exports: ExportService): FastifyPluginAsync {
  return async (app) => {
    // Only this plugin's routes take multipart bodies: the form's fields, the file as a Buffer.
    app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: MAX_DASHBOARD_UPLOAD_BYTES }, (request, body, done) => {
      const boundary = boundaryOf(request.headers['content-type']);
      if (!boundary) return done(new ApiError('bad_request', 'Malformed multipart body: the Content-Type has no boundary.'));
      const buf = body as Buffer;
      Promise.all([fieldOf(buf, boundary, '_csrf'), fieldOf(buf, boundary, 'dryRun'), fieldOf(buf, boundary, 'file')]).then(
        ([csrf, dryRun, file]) => done(null, { _csrf: csrf?.toString('utf8'), dryRun: dryRun?.toString('utf8'), file: file ?? Buffer.alloc(0) } satisfies Upload),
        (err: Error) => done(err),
      );
    });

    app.get<{ Params: Params }>('/dashboard/w/:slug/links/import', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      return sendPage(reply, <ImportPage frame={{ ...page.frame, workspace: page.frame.workspace! }} />);
    });

    app.post<{ Params: Params; Body: Upload | Record<string, string> }>('/dashboard/w/:slug/links/import', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const frame = { ...page.frame, workspace: page.frame.workspace! };
      const body = request.body as Partial<Upload> | undefined;
      if (!body?.file || body.file.length === 0) return sendPage(reply, <ImportPage frame={frame} error="Choose a CSV file to import." />, 422);
      try {
        const report = await imports.importCsv(page.workspace, Readable.from([body.file]), { dryRun: body.dryRun === 'true', userId: page.userId });
        return sendPage(reply, <ImportPage frame={frame} report={report} />);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        return sendPage(reply, <ImportPage frame={frame} error={err.message} />, err.status);
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
      return sendEventsExport(reply, exports, auth, query, view);
    });

    app.get<{ Params: Params; Querystring: unknown }>('/dashboard/w/:slug/analytics/export', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      const { query, view } = folderView(parseInput(AnalyticsExportQuery, request.query));
      return sendAnalyticsExport(reply, exports, apiCallerOf(page), query, view);
    });
  };
}

/**
 * Streams one export as a download: the body `GET /links/export`, `/events/export` and
 * `/analytics/export` send, shared with the dashboard's download links so both give the same file.
 * The query is already validated (the export schemas) and the caller's permission checked.
 *
 * @example
 * return sendLinksExport(reply, exports, { workspaceId, workspace, userId }, LinksExportQuery.parse(query));
 */
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { AuthContext } from '../workspaces/service.js';
import { analyticsCsv, CSV_TYPE, eventsBody, linksCsv } from './bodies.js';
import type { AnalyticsExportQuery, EventsExportQuery, LinksExportQuery } from './schema.js';
import type { ExportService } from './service.js';

function download(reply: FastifyReply, type: string, filename: string, body: Readable) {
  return reply.header('content-type', type).header('content-disposition', `attachment; filename="${filename}"`).send(body);
}

export async function sendLinksExport(reply: FastifyReply, exports: ExportService, caller: Parameters<ExportService['linkPages']>[0], q: LinksExportQuery) {
  return download(reply, CSV_TYPE, 'links.csv', linksCsv(await exports.linkPages(caller, q)));
}

export async function sendEventsExport(reply: FastifyReply, exports: ExportService, auth: AuthContext, q: EventsExportQuery) {
  const { type, body } = eventsBody(q, await exports.eventPages(auth, q));
  return download(reply, type, `${q.event}.${q.format}`, body);
}

export async function sendAnalyticsExport(reply: FastifyReply, exports: ExportService, auth: AuthContext, q: AnalyticsExportQuery) {
  const groupBy = q.type ?? q.groupBy ?? 'count';
  return download(reply, CSV_TYPE, `analytics-${groupBy}.csv`, analyticsCsv(await exports.analyticsRows(auth, q)));
}

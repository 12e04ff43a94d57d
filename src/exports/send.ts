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
import { cellOf, EVENT_COLUMNS, get, LINK_COLUMNS, linkRow } from './cells.js';
import type { AnalyticsExportQuery, EventsExportQuery, LinksExportQuery } from './schema.js';
import type { ExportService } from './service.js';
import { csvStream, ndjsonStream } from './streams.js';

const CSV = 'text/csv; charset=utf-8';

function download(reply: FastifyReply, type: string, filename: string, body: Readable) {
  return reply.header('content-type', type).header('content-disposition', `attachment; filename="${filename}"`).send(body);
}

export async function sendLinksExport(reply: FastifyReply, exports: ExportService, caller: Parameters<ExportService['linkPages']>[0], q: LinksExportQuery) {
  const pages = await exports.linkPages(caller, q);
  return download(reply, CSV, 'links.csv', csvStream(LINK_COLUMNS, pages, (l) => linkRow(l as unknown as Record<string, unknown>)));
}

export async function sendEventsExport(reply: FastifyReply, exports: ExportService, auth: AuthContext, q: EventsExportQuery) {
  const pages = await exports.eventPages(auth, q);
  const name = `${q.event}.${q.format}`;
  if (q.format === 'ndjson') return download(reply, 'application/x-ndjson; charset=utf-8', name, ndjsonStream(pages));
  const columns = EVENT_COLUMNS[q.event];
  return download(reply, CSV, name, csvStream(columns, pages, (e) => columns.map((c) => cellOf(get(e, c)))));
}

export async function sendAnalyticsExport(reply: FastifyReply, exports: ExportService, auth: AuthContext, q: AnalyticsExportQuery) {
  const { columns, rows } = await exports.analyticsRows(auth, q);
  const groupBy = q.type ?? q.groupBy ?? 'count';
  return download(reply, CSV, `analytics-${groupBy}.csv`, csvStream(columns, [rows], (r) => columns.map((c) => cellOf(r[c]))));
}

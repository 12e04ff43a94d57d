/**
 * Streams one export as a download: the body `GET /links/export`, `/events/export` and
 * `/analytics/export` send, shared with the dashboard's download links so both give the same file.
 * The query is already validated (the export schemas) and the caller's permission checked. Each
 * export counts against its workspace's running exports (gate.ts) from its first read until its
 * body closes (sent, or the client went away).
 *
 * @example
 * return sendLinksExport(reply, exports, { workspaceId, workspace, userId }, LinksExportQuery.parse(query));
 */
import type { FastifyReply } from 'fastify';
import type { Who } from '../audit/record.js';
import type { Readable } from 'node:stream';
import type { AuthContext } from '../workspaces/service.js';
import type { ReadView } from '../analytics/service.js';
import { analyticsCsv, CSV_TYPE, eventsBody, linksCsv } from './bodies.js';
import type { AnalyticsExportQuery, EventsExportQuery, LinksExportQuery } from './schema.js';
import type { ExportService } from './service.js';
import { spanOf } from '../tracing/requests.js';

interface Download {
  type: string;
  filename: string;
  body: Readable;
}

/**
 * Admits the export, builds its body (the first read answers a bad filter as JSON), records who
 * exported what (once the export is accepted: a client that leaves early still had its start), streams it.
 */
async function download(reply: FastifyReply, exports: ExportService, entry: ExportEntry, make: () => Promise<Download>) {
  const release = exports.admit(entry.workspaceId);
  // From the first read until the body closes: the request's span ends when the answer starts.
  const span = exports.traces.start('export.stream', { parent: spanOf(reply.request), attributes: { 'waymark.workspace_id': entry.workspaceId, 'waymark.export.kind': entry.kind } });
  let made: Download | undefined;
  try {
    made = await make();
    await exports.recordExport(entry.who, entry.workspaceId, entry.kind, entry.query);
  } catch (err) {
    made?.body.destroy();
    release();
    span.fail(err);
    span.end();
    throw err;
  }
  const d = made;
  span.set({ 'waymark.export.type': d.type, 'waymark.export.filename': d.filename });
  let completed = false;
  d.body.once('end', () => (completed = true));
  d.body.once('close', () => {
    release();
    span.set({ 'waymark.export.completed': completed });
    span.end();
  });
  return reply.header('content-type', d.type).header('content-disposition', `attachment; filename="${d.filename}"`).send(d.body);
}

interface ExportEntry {
  workspaceId: string;
  who: Who | undefined;
  kind: 'links' | 'events' | 'analytics';
  query: object;
}

export function sendLinksExport(reply: FastifyReply, exports: ExportService, caller: Parameters<ExportService['linkPages']>[0], q: LinksExportQuery, view: ReadView = {}) {
  return download(reply, exports, { workspaceId: caller.workspaceId, who: caller.who, kind: 'links', query: q }, async () => ({ type: CSV_TYPE, filename: 'links.csv', body: linksCsv(await exports.linkPages(caller, q, view)) }));
}

export function sendEventsExport(reply: FastifyReply, exports: ExportService, auth: AuthContext, who: Who, q: EventsExportQuery, view: ReadView = {}) {
  return download(reply, exports, { workspaceId: auth.workspaceId, who, kind: 'events', query: q }, async () => ({ ...eventsBody(q, await exports.eventPages(auth, q, view)), filename: `${q.event}.${q.format}` }));
}

export function sendAnalyticsExport(reply: FastifyReply, exports: ExportService, auth: AuthContext, who: Who, q: AnalyticsExportQuery, view: ReadView = {}) {
  const groupBy = q.type ?? q.groupBy ?? 'count';
  return download(reply, exports, { workspaceId: auth.workspaceId, who, kind: 'analytics', query: q }, async () => ({ type: CSV_TYPE, filename: `analytics-${groupBy}.csv`, body: analyticsCsv(await exports.analyticsRows(auth, q, view)) }));
}

/**
 * The dashboard's analytics export of what its page shows (the totals, the time series and every
 * breakdown): `rows` is called once the export is admitted; its cells pass through the same CSV
 * writer (formulas neutralised) as every export.
 */
export function sendAnalyticsPageExport(reply: FastifyReply, exports: ExportService, auth: AuthContext, who: Who, query: object, table: () => Promise<{ columns: string[]; rows: Record<string, unknown>[] }>) {
  return download(reply, exports, { workspaceId: auth.workspaceId, who, kind: 'analytics', query }, async () => ({ type: CSV_TYPE, filename: 'analytics.csv', body: analyticsCsv(await table()) }));
}

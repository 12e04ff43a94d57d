/**
 * The export routes: `GET /links/export`, `GET /events/export`, `GET /analytics/export`. Each
 * checks its query and permission like the list it mirrors, then streams the body.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { cellOf, EVENT_COLUMNS, get, LINK_COLUMNS, linkRow } from './cells.js';
import { AnalyticsExportQuery, CsvBody, EventsExportBody, EventsExportQuery, LinksExportQuery } from './schema.js';
import type { ExportService } from './service.js';
import { csvStream, ndjsonStream } from './streams.js';

const CSV = 'text/csv; charset=utf-8';

function download(reply: FastifyReply, type: string, filename: string, body: Readable) {
  return reply.header('content-type', type).header('content-disposition', `attachment; filename="${filename}"`).send(body);
}

export const exportRoutes: FastifyPluginAsyncZod<{ exports: ExportService }> = async (app, { exports }) => {
  app.get(
    '/links/export',
    {
      config: { permission: 'links.read' },
      schema: {
        tags: ['Links'],
        operationId: 'exportLinks',
        summary: 'Export links as CSV',
        description: 'Every link `GET /links` lists for the same filters, one row each with every field (`tags`: the tag names). The file can be imported again with `POST /links/import`.',
        querystring: LinksExportQuery,
        produces: ['text/csv'],
        response: { 200: CsvBody },
      },
    },
    async (req, reply) => {
      const caller = { workspaceId: req.auth.workspaceId, workspace: req.auth.workspace, userId: req.auth.keyId };
      const pages = await exports.linkPages(caller, req.query);
      return download(reply, CSV, 'links.csv', csvStream(LINK_COLUMNS, pages, (l) => linkRow(l as unknown as Record<string, unknown>)));
    },
  );

  app.get(
    '/events/export',
    {
      config: { permission: 'analytics.read', minPlan: 'business' },
      schema: {
        tags: ['Events'],
        operationId: 'exportEvents',
        summary: 'Export events as CSV or NDJSON',
        description: 'Every event `GET /events` lists for the same filters (all pages), streamed. Requires the Business plan or higher.',
        querystring: EventsExportQuery,
        produces: ['text/csv', 'application/x-ndjson'],
        response: { 200: EventsExportBody },
      },
    },
    async (req, reply) => {
      const pages = await exports.eventPages(req.auth, req.query);
      const name = `${req.query.event}.${req.query.format}`;
      if (req.query.format === 'ndjson') return download(reply, 'application/x-ndjson; charset=utf-8', name, ndjsonStream(pages));
      const columns = EVENT_COLUMNS[req.query.event];
      return download(reply, CSV, name, csvStream(columns, pages, (e) => columns.map((c) => cellOf(get(e, c)))));
    },
  );

  app.get(
    '/analytics/export',
    {
      config: { permission: 'analytics.read' },
      schema: {
        tags: ['Analytics'],
        operationId: 'exportAnalytics',
        summary: 'Export analytics as CSV',
        description: 'The rows `GET /analytics` answers for the same query (`groupBy`), one CSV row each; `count` is one row.',
        querystring: AnalyticsExportQuery,
        produces: ['text/csv'],
        response: { 200: CsvBody },
      },
    },
    async (req, reply) => {
      const { columns, rows } = await exports.analyticsRows(req.auth, req.query);
      const groupBy = req.query.type ?? req.query.groupBy ?? 'count';
      return download(reply, CSV, `analytics-${groupBy}.csv`, csvStream(columns, [rows], (r) => columns.map((c) => cellOf(r[c]))));
    },
  );
};

/**
 * The export routes: `GET /links/export`, `GET /events/export`, `GET /analytics/export`. Each
 * checks its query and permission like the list it mirrors, then streams the body.
 */
import { whoOf } from '../audit/record.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AnalyticsExportQuery, CsvBody, EventsExportBody, EventsExportQuery, LinksExportQuery } from './schema.js';
import type { ExportService } from './service.js';
import { sendAnalyticsExport, sendEventsExport, sendLinksExport } from './send.js';

export const exportRoutes: FastifyPluginAsyncZod<{ exports: ExportService }> = async (app, { exports }) => {
  app.get(
    '/links/export',
    {
      config: { permission: 'links.read' },
      schema: {
        tags: ['Links'],
        operationId: 'exportLinks',
        summary: 'Export links as CSV',
        description: 'Every link `GET /links` lists for the same filters, one row each with every field but `password` (`tags`: the tag names); no export carries a link\'s password. The file can be imported again with `POST /links/import`.',
        querystring: LinksExportQuery,
        produces: ['text/csv'],
        response: { 200: CsvBody },
      },
    },
    async (req, reply) => {
      const caller = { workspaceId: req.auth.workspaceId, workspace: req.auth.workspace, userId: req.auth.keyId, who: whoOf(req) };
      return sendLinksExport(reply, exports, caller, req.query);
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
      return sendEventsExport(reply, exports, req.auth, whoOf(req), req.query);
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
      return sendAnalyticsExport(reply, exports, req.auth, whoOf(req), req.query);
    },
  );
};

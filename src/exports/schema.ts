/**
 * Query schemas of the exports: the filters of the lists they mirror, without paging (an export
 * is every page), plus the format of the events export.
 */
import { z } from 'zod';
import { ListLinksQuery } from '../links/schema.js';
import { AnalyticsQuery, EventsQuery } from '../analytics/schema.js';

/** `GET /links/export`: the filters of `GET /links`, newest first unless `sortOrder=asc`. */
export const LinksExportQuery = ListLinksQuery.omit({ page: true, pageSize: true, startingAfter: true, endingBefore: true, sortBy: true, sort: true });
export type LinksExportQuery = z.infer<typeof LinksExportQuery>;

/** `GET /events/export`: the filters of `GET /events`, every page. */
export const EventsExportQuery = EventsQuery.omit({ page: true, limit: true }).extend({
  format: z.enum(['csv', 'ndjson']).default('csv').describe('`csv` (one column per field, nested ones as `customer.email`) or `ndjson` (the records of `GET /events`, one a line).'),
});
export type EventsExportQuery = z.infer<typeof EventsExportQuery>;

/** `GET /analytics/export`: the query of `GET /analytics`. */
export const AnalyticsExportQuery = AnalyticsQuery;
export type AnalyticsExportQuery = z.infer<typeof AnalyticsExportQuery>;

export const CsvBody = z.string().describe('CSV with a header row (RFC 4180).');

export const EventsExportBody = z.string().describe('CSV with a header row (RFC 4180), or with `format=ndjson` one JSON record of `GET /events` a line, its `link` without `password`.');

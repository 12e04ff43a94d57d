/**
 * The body of each export, the same for the API's routes, the dashboard's downloads
 * (send.ts) and `waymark export` (cli/export.ts).
 *
 * @example
 * const body = linksCsv(await exports.linkPages(caller, query));
 */
import type { Readable } from 'node:stream';
import type { EventRecord } from '../analytics/schema.js';
import type { LinkResponse } from '../links/response.js';
import { EVENT_COLUMNS, eventRow, LINK_COLUMNS, linkRow, type ExportedEvent } from './cells.js';
import type { EventsExportQuery } from './schema.js';
import { csvStream, ndjsonStream } from './streams.js';

export const CSV_TYPE = 'text/csv; charset=utf-8';
export const NDJSON_TYPE = 'application/x-ndjson; charset=utf-8';

/** Links without their password (cells.ts: `exportedLink`): no export carries one. */
export function linksCsv(pages: AsyncIterable<Omit<LinkResponse, 'password'>[]>): Readable {
  return csvStream(LINK_COLUMNS, pages, (l) => linkRow(l as unknown as Record<string, unknown>));
}

/** The events export in its format, with its content type. */
export function eventsBody(q: Pick<EventsExportQuery, 'event' | 'format'>, pages: AsyncIterable<ExportedEvent<EventRecord>[]>): { type: string; body: Readable } {
  if (q.format === 'ndjson') return { type: NDJSON_TYPE, body: ndjsonStream(pages) };
  const columns = EVENT_COLUMNS[q.event];
  return { type: CSV_TYPE, body: csvStream(columns, pages, eventRow(columns)) };
}

export function analyticsCsv({ columns, rows }: { columns: string[]; rows: Record<string, unknown>[] }): Readable {
  return csvStream(columns, [rows], (r) => columns.map((c) => r[c]));
}

/**
 * The exports: every link, event or analytics row that the matching list answers for the same
 * filters (or, with `view.everyFolder`, what the dashboard lists: every folder's), as pages pulled on demand, without link passwords (cells.ts: `exportedLink`). Each call
 * checks its input first (the error is then an ordinary JSON answer); the pages are read only as
 * the response is written.
 *
 * @example
 * const pages = await exports.linkPages(caller, { sortOrder: 'asc' });
 * for await (const page of pages) for (const link of page) console.log(link.shortLink);
 */
import type { Change, Who } from '../audit/record.js';
import type { AnalyticsService, ReadView } from '../analytics/service.js';
import type { EventRecord } from '../analytics/schema.js';
import type { ListLinksQuery } from '../links/schema.js';
import type { Caller, LinkService } from '../links/service.js';
import type { LinkResponse } from '../links/response.js';
import type { AuthContext } from '../workspaces/service.js';
import type { AnalyticsExportQuery, EventsExportQuery, LinksExportQuery } from './schema.js';
import { exportedEvent, exportedLink, type ExportedEvent } from './cells.js';
import { createExportGate } from './gate.js';
import { NO_TRACES, type Traces } from '../tracing/traces.js';

/** Links per page: the largest page `GET /links` serves. */
const LINK_PAGE = 100;
/**
 * Events per page of the keyset walk. A page arrives and is shaped into records on the main
 * thread in one piece (the rows' structured clone from the reader thread, then the records):
 * ~1,000 rows cost 15-40 ms there, 250 a quarter of it, while the extra queries run off the
 * main thread.
 */
const EVENT_PAGE = 250;

export interface ExportDeps {
  links: Pick<LinkService, 'list'>;
  analytics: Pick<AnalyticsService, 'eventPages' | 'retrieve'>;
  /** Exports of one workspace streaming at once in this process (`EXPORTS_PER_WORKSPACE`); unset: no limit (the CLI). */
  perWorkspace?: number;
  /** Writes an export's audit entry in a transaction of its own (audit/module.ts `recordAlone`). */
  record: (who: Who | undefined, change: Change) => Promise<void>;
  /** A span per export, from its first read until its body closes (send.ts). */
  traces?: Traces;
}

export function createExportService(deps: ExportDeps) {
  const gate = createExportGate(deps.perWorkspace ?? Number.POSITIVE_INFINITY);
  return {
    traces: deps.traces ?? NO_TRACES,
    /** Admits one more export of the workspace (429 past the limit); call the release when its body closes. */
    admit: (workspaceId: string) => gate.enter(workspaceId),
    /** Records who exported what (`export.links`, `export.events`, `export.analytics`), with the query's filters. */
    recordExport: (who: Who | undefined, workspaceId: string, kind: 'links' | 'events' | 'analytics', query: object) =>
      deps.record(who, { workspaceId, action: `export.${kind}`, targetIds: [], changes: { query } }),
    /** Exports of the workspace streaming now. */
    running: (workspaceId: string) => gate.running(workspaceId),

    /** Every link `GET /links` lists for these filters, by creation time (cursor pages). */
    async linkPages(caller: Caller, q: LinksExportQuery, view: ReadView = {}): Promise<AsyncGenerator<Omit<LinkResponse, 'password'>[]>> {
      const query = (startingAfter?: string) => ({ ...q, sortBy: 'createdAt', pageSize: LINK_PAGE, startingAfter }) as ListLinksQuery;
      // The first page now: a bad filter is answered before the response starts.
      const first = await deps.links.list(caller, query(), view);
      return (async function* () {
        let page = first;
        while (page.length) {
          yield page.map(exportedLink);
          if (page.length < LINK_PAGE) return;
          page = await deps.links.list(caller, query(page[page.length - 1]!.id), view);
        }
      })();
    },

    /** Every event `GET /events` lists for these filters, walked by keyset (links without their password). */
    async eventPages(auth: AuthContext, q: EventsExportQuery, view: ReadView = {}): Promise<AsyncGenerator<ExportedEvent<EventRecord>[]>> {
      const { format: _format, ...filters } = q;
      const pages = await deps.analytics.eventPages(auth, filters, EVENT_PAGE, view);
      return (async function* () {
        for await (const page of pages) yield page.map(exportedEvent);
      })();
    },

    /** The rows of `GET /analytics` (a `count` is one row), with their columns in order of appearance. */
    async analyticsRows(auth: AuthContext, q: AnalyticsExportQuery, view: ReadView = {}): Promise<{ columns: string[]; rows: Record<string, unknown>[] }> {
      const answer = await deps.analytics.retrieve(auth, q, view);
      const rows = (Array.isArray(answer) ? answer : [answer]) as unknown as Record<string, unknown>[];
      const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      return { columns, rows };
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;

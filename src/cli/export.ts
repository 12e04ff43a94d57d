/**
 * `waymark export links|events|analytics --workspace <slug> [--query "<filters>"] [--out file]`:
 * the exports of `GET /links/export`, `/events/export` and `/analytics/export` from the command
 * line, through the same export service and streams, to stdout or a file. `--query` takes the
 * API's query string (`interval=30d&country=US`), checked by the same schemas.
 *
 * @example
 * npx waymark export events -w acme --event sales --format ndjson --query "interval=all" --out sales.ndjson
 * npx waymark export analytics -w acme --query "groupBy=countries&interval=90d"
 */
import { CLI } from '../audit/record.js';
import { recordAlone } from '../audit/module.js';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import { createChangeBus } from '../db/change-bus.js';
import { createAnalyticsService } from '../analytics/service.js';
import { createSqlRunner, openEventStores, type EventStores } from '../events/index.js';
import { ApiError, formatZodError } from '../http/errors.js';
import { createLinkService } from '../links/service.js';
import { createLinkStore } from '../links/store.js';
import { analyticsCsv, eventsBody, linksCsv } from '../exports/bodies.js';
import { AnalyticsExportQuery, EventsExportQuery, LinksExportQuery } from '../exports/schema.js';
import { createExportService } from '../exports/service.js';
import { createWorkspaceService } from '../workspaces/service.js';
import { createWorkspaceStore } from '../workspaces/store.js';

export const EXPORT_USAGE = `  export links|events|analytics --workspace <id|slug> [--query "<API query string>"] [--out <file>]
        [--event clicks|leads|sales] [--format csv|ndjson]: stream a CSV (events: or NDJSON) to stdout or a file
`;

function checked<S extends z.ZodType>(schema: S, query: Record<string, string | string[]>): z.infer<S> {
  const parsed = schema.safeParse(query);
  if (!parsed.success) throw new Error(formatZodError(parsed.error));
  return parsed.data;
}

/** `a=1&b=2&b=3` → `{a: '1', b: ['2', '3']}`, as the API's query parser reads it. */
function queryObject(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

export async function runExport(input: { argv: string[]; config: Config; database: OpenDatabase; stdout?: Writable }): Promise<number> {
  const { positionals, values } = parseArgs({
    args: input.argv,
    allowPositionals: true,
    options: {
      workspace: { type: 'string', short: 'w' },
      query: { type: 'string', short: 'q' },
      out: { type: 'string', short: 'o' },
      event: { type: 'string' },
      format: { type: 'string' },
    },
  });
  const [what] = positionals;
  if (what !== 'links' && what !== 'events' && what !== 'analytics') throw new Error('what to export: waymark export links|events|analytics --workspace <slug>');
  if (!values.workspace) throw new Error('--workspace <id|slug> is required');
  const ws = await createWorkspaceService(createWorkspaceStore(input.database.db)).findWorkspace(values.workspace);
  if (!ws) throw new Error(`workspace "${values.workspace}" not found`);

  const { db, dialect } = input.database;
  const reader = createSqlRunner(input.database);
  let stores: EventStores | undefined;
  try {
    // The event log the server uses (EVENTS_URL): with DuckDB, its file, which the server must not
    // hold open. Links need none (their counters are in the metadata database).
    stores = await openEventStores({ config: what === 'links' ? { ...input.config, eventsUrl: 'sql' } : input.config, database: input.database, runner: reader });
    const links = createLinkService({ db, dialect, store: createLinkStore(db, dialect), bus: createChangeBus(), now: Date.now, config: input.config });
    const analytics = createAnalyticsService({ db, reader, events: stores.events, now: Date.now, linkSettings: input.config });
    const exports = createExportService({ links, analytics, record: (who, change) => recordAlone(input.database, who, change) });
    // The operator's export: the whole workspace's data, like a key with every permission.
    const auth = { workspaceId: ws.id, workspace: ws, keyId: 'cli', keyHash: '', permissions: 'all' as const };
    const query = { ...queryObject(values.query ?? ''), ...(values.event ? { event: values.event } : {}), ...(values.format ? { format: values.format } : {}) };
    let body: Readable;
    if (what === 'links') {
      body = linksCsv(await exports.linkPages({ workspaceId: ws.id, workspace: ws, userId: null }, checked(LinksExportQuery, query)));
    } else if (what === 'events') {
      const q = checked(EventsExportQuery, query);
      body = eventsBody(q, await exports.eventPages(auth, q)).body;
    } else {
      body = analyticsCsv(await exports.analyticsRows(auth, checked(AnalyticsExportQuery, query)));
    }
    await exports.recordExport(CLI, ws.id, what, query);
    const target = values.out ? createWriteStream(values.out) : (input.stdout ?? process.stdout);
    await pipeline(body, target, { end: !!values.out });
    return 0;
  } catch (err) {
    if (err instanceof ApiError) throw new Error(err.message);
    throw err;
  } finally {
    await stores?.close();
    await reader.close();
  }
}

/**
 * The audit log (docs/dashboard.md, "Audit log"): who changed what in a workspace.
 *
 * - Services write entries themselves, inside the transaction of their change, with the `Who`
 *   the route handler passes them (record.ts); nothing here runs per request.
 * - `GET /audit-log` lists a workspace's entries for a key with full access; the dashboard page
 *   (dashboard/routes/audit.tsx) and its CSV export read the same `list`.
 * - `expire` is retention's step (events/retention-module.ts), `AUDIT_RETENTION_DAYS`.
 *
 * @example
 * const audit = createAuditModule({ database });
 * await app.register(audit.routes);
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OpenDatabase } from '../db/open.js';
import { ApiError } from '../http/errors.js';
import { record, type Change, type Who } from './record.js';
import { createAuditStore, type AuditFilters } from './store.js';
import { entryOf, type AuditEntry } from './entries.js';

/** Entries per page: default and most. */
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 100;

/**
 * Writes one entry in a transaction of its own: for work made of many transactions (an import
 * writes 50 links per transaction) whose single entry is recorded when it ends.
 */
export async function recordAlone(database: OpenDatabase, who: Who | undefined, change: Change): Promise<void> {
  if (who) await database.db.transaction().execute((trx) => record(trx, who, change));
}

/**
 * Writes the entry in every workspace, in one transaction: an operator's erasure of a visitor
 * (`npx waymark erase`) reaches the events of all of them.
 */
export async function recordInEveryWorkspace(database: OpenDatabase, who: Who, change: Omit<Change, 'workspaceId'>): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    const at = Date.now();
    for (const { id } of await trx.selectFrom('workspaces').select('id').execute()) await record(trx, who, { ...change, workspaceId: id }, at);
  });
}

export function createAuditModule({ database }: { database: OpenDatabase }) {
  const store = createAuditStore(database.db);

  const service = {
    /** A page of the workspace's entries, newest first, and the cursor of the next page. */
    async list(workspaceId: string, filters: AuditFilters, limit = AUDIT_PAGE_DEFAULT, cursor?: string): Promise<{ data: AuditEntry[]; nextCursor: string | null }> {
      const rows = await store.list(workspaceId, filters, limit + 1, cursor);
      const page = rows.slice(0, limit);
      return { data: page.map(entryOf), nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
    },
    /** Every entry of the filters, a page at a time (the CSV export). */
    async *pages(workspaceId: string, filters: AuditFilters): AsyncGenerator<AuditEntry[]> {
      let cursor: string | undefined;
      for (;;) {
        const page = await service.list(workspaceId, filters, 500, cursor);
        if (page.data.length) yield page.data;
        if (!page.nextCursor) return;
        cursor = page.nextCursor;
      }
    },
    expire: (before: number, limit: number) => store.expire(before, limit),
    /** The audit log's own CSV export is an export too (`export.audit`, with its filters). */
    recordExport: (who: Who, workspaceId: string, query: object) => recordAlone(database, who, { workspaceId, action: 'export.audit', targetIds: [], changes: { query } }),
  };

  const routes: FastifyPluginAsyncZod = async (app) => {
    app.get(
      '/audit-log',
      {
        config: { permission: 'workspaces.read' },
        schema: {
          tags: ['Audit log'],
          operationId: 'getAuditLog',
          summary: 'Retrieve the audit log',
          description: 'Who changed what in the workspace, newest first. Requires a key with full access (not a restricted key).',
          querystring: AuditQuery,
          response: { 200: AuditPage },
        },
      },
      async (req) => {
        if (req.auth.permissions !== 'all') throw new ApiError('forbidden', 'The audit log needs an API key with full access.');
        const { limit, cursor, ...filters } = req.query;
        return service.list(req.auth.workspaceId, filtersOf(filters), limit, cursor);
      },
    );
  };

  return { service, routes };
}

export type AuditModule = ReturnType<typeof createAuditModule>;
export type AuditService = AuditModule['service'];

const ID = z.string().min(1).max(300).regex(/^[A-Za-z0-9_-]+$/, 'An id.');
export const AuditQuery = z.object({
  actor: ID.optional().describe('A user id, an API key id, or `cli`.'),
  action: z.string().max(100).regex(/^[a-z_]+(\.[a-z_]+)?$/, 'An action (`link.update`) or a target type (`link`).').optional(),
  target: ID.optional().describe('A target id (also found among a bulk entry\'s ids).'),
  start: z.string().datetime({ offset: true }).optional().describe('Entries at or after (ISO 8601).'),
  end: z.string().datetime({ offset: true }).optional().describe('Entries before (ISO 8601).'),
  cursor: ID.optional().describe('`nextCursor` of the previous page.'),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
});

/** The query's filters as the store takes them. */
export function filtersOf(q: { actor?: string; action?: string; target?: string; start?: string; end?: string }): AuditFilters {
  return {
    actor: q.actor,
    action: q.action,
    target: q.target,
    from: q.start ? Date.parse(q.start) : undefined,
    to: q.end ? Date.parse(q.end) : undefined,
  };
}

const AuditEntrySchema = z.object({
  id: z.string(),
  timestamp: z.string(),
  actor: z.object({ type: z.enum(['user', 'api_key', 'cli']), id: z.string().nullable() }),
  ip: z.string().nullable(),
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable(), ids: z.array(z.string()), count: z.number() }),
  changes: z.record(z.string(), z.unknown()),
});
const AuditPage = z.object({ data: z.array(AuditEntrySchema), nextCursor: z.string().nullable() });

/**
 * The audit log (docs/dashboard.md, "Audit log"): who changed what in a workspace.
 *
 * - `scopePlugin` gives every request an audit scope (scope.ts): the client's address, and the
 *   actor once authenticated (an API key, or the dashboard session's user).
 * - The commit hook writes the notes of a request's change inside the transaction that commits
 *   it (`database.commitHooks`); a rollback drops them.
 * - `GET /audit-log` lists a workspace's entries for a key with full access; the dashboard page
 *   (dashboard/routes/audit.tsx) and its CSV export read the same `list`.
 * - `expire` is retention's step (events/retention-module.ts), `AUDIT_RETENTION_DAYS`.
 *
 * @example
 * const audit = createAuditModule({ database, now });
 * await app.register(audit.scopePlugin); // before the auth hooks
 */
import fp from 'fastify-plugin';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OpenDatabase } from '../db/open.js';
import { ApiError } from '../http/errors.js';
import { auditScope, dropPending, newScope, noteChange, setActor, takePending, type Actor } from './scope.js';
import { createAuditStore, type AuditFilters } from './store.js';
import { entryOf, rowOf, type AuditEntry } from './entries.js';

/** Entries per page: default and most. */
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 100;

/**
 * Makes every transaction of `database` write the audit notes of its scope before it commits
 * (the app at start; the CLI, whose commands run in a scope whose actor is `cli`).
 */
export function installAuditHook(database: OpenDatabase, now: () => number = Date.now): void {
  const store = createAuditStore(database.db);
  database.commitHooks.beforeCommit = async (connection) => {
    const taken = takePending();
    if (!taken) return;
    const at = now();
    await connection.executeQuery(store.insertQuery(taken.notes.map((n) => rowOf(n, taken.scope, at))));
  };
  database.commitHooks.afterRollback = dropPending;
}

/**
 * Writes one entry in a transaction of its own: for work made of many transactions (an import
 * writes 50 links per transaction) whose single entry is recorded when it ends.
 */
export async function recordChange(database: OpenDatabase, ...note: Parameters<typeof noteChange>): Promise<void> {
  await database.db.transaction().execute(async () => noteChange(...note));
}

export function createAuditModule({ database, now }: { database: OpenDatabase; now: () => number }) {
  const store = createAuditStore(database.db);
  installAuditHook(database, now);

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
  };

  /** One audit scope per request; the actor is known after authentication (preHandler). */
  const scopePlugin = fp(
    async (app) => {
      app.addHook('onRequest', (request, _reply, done) => {
        auditScope.run(newScope(undefined, request.clientAddress), done);
      });
      app.addHook('preHandler', async (request) => {
        const actor: Actor | undefined = request.auth
          ? { type: 'api_key', id: request.auth.keyId }
          : request.dashboard?.session
            ? { type: 'user', id: request.dashboard.session.user.id }
            : undefined;
        if (actor) setActor(actor);
      });
    },
    { name: 'waymark-audit-scope' },
  );

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

  return { service, scopePlugin, routes };
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

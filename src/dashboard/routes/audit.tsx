/**
 * Settings → Audit log (owners, `audit.read`): `GET /dashboard/w/<slug>/settings/audit` lists the
 * workspace's entries (the audit service's `list`, as `GET /audit-log`), and `…/audit.csv`
 * downloads every entry of the same filters through the exports' CSV writer (`csvStream`, which
 * neutralises spreadsheet formulas).
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AuditService } from '../../audit/module.js';
import { CSV_HEADER, csvCells } from '../../audit/entries.js';
import type { AuditFilters } from '../../audit/store.js';
import { csvStream } from '../../exports/streams.js';
import { CSV_TYPE } from '../../exports/bodies.js';
import type { WorkspaceService } from '../../workspaces/service.js';
import type { UsersModule } from '../../users/module.js';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, sendPage } from '../kit.js';
import { AuditPage, type AuditFiltersView } from '../pages/audit.js';

const DAY_MS = 86_400_000;
const Id = z.string().trim().max(300).regex(/^[A-Za-z0-9_-]*$/, 'letters, digits, _ and - only');
const Day = z.string().regex(/^(\d{4}-\d{2}-\d{2})?$/, 'a date (YYYY-MM-DD)');
const AuditPageQuery = z.object({
  actor: Id.optional(),
  action: z.string().trim().max(100).regex(/^([a-z_]+(\.[a-z_]+)?)?$/, 'an action (link.update) or a target type (link)').optional(),
  target: Id.optional(),
  from: Day.optional(),
  to: Day.optional(),
  cursor: Id.optional(),
});
type Query = z.infer<typeof AuditPageQuery>;

/** Empty fields are no filter; `to` includes its whole day. */
function filtersOf(q: Query): AuditFilters {
  return {
    actor: q.actor || undefined,
    action: q.action || undefined,
    target: q.target || undefined,
    from: q.from ? Date.parse(`${q.from}T00:00:00Z`) : undefined,
    to: q.to ? Date.parse(`${q.to}T00:00:00Z`) + DAY_MS : undefined,
  };
}

function queryOf(q: Query, cursor?: string): string {
  const p = new URLSearchParams();
  for (const k of ['actor', 'action', 'target', 'from', 'to'] as const) if (q[k]) p.set(k, q[k]!);
  if (cursor) p.set('cursor', cursor);
  const s = p.toString();
  return s ? `?${s}` : '';
}

export function auditRoutes(kit: Kit, audit: AuditService, users: UsersModule, workspaces: WorkspaceService): FastifyPluginAsync {
  async function namesOf(page: WorkspacePage): Promise<Map<string, string>> {
    const [members, keys] = await Promise.all([users.service.membersOf(page.workspace.id), workspaces.listKeys(page.workspace.id)]);
    return new Map([...members.map((m) => [m.userId, `${m.name} <${m.email}>`] as const), ...keys.map((k) => [k.id, k.name] as const)]);
  }

  async function show(reply: FastifyReply, page: WorkspacePage, raw: unknown) {
    const frame = { ...page.frame, workspace: page.frame.workspace! };
    const parsed = AuditPageQuery.safeParse(raw ?? {});
    const names = await namesOf(page);
    if (!parsed.success) {
      const view = (raw ?? {}) as AuditFiltersView;
      const error = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      return sendPage(reply, <AuditPage frame={frame} entries={[]} filters={view} csvQuery="" names={names} error={error} />, 422);
    }
    const q = parsed.data;
    const { data, nextCursor } = await audit.list(page.workspace.id, filtersOf(q), 50, q.cursor || undefined);
    return sendPage(
      reply,
      <AuditPage frame={frame} entries={data} filters={q} nextQuery={nextCursor ? queryOf(q, nextCursor) : undefined} csvQuery={queryOf(q)} names={names} />,
    );
  }

  return async (app) => {
    app.get<{ Params: { slug: string } }>('/dashboard/w/:slug/settings/audit', { schema: HIDDEN }, async (request, reply) =>
      show(reply, await kit.workspacePage(request, request.params.slug, 'audit.read'), request.query),
    );

    app.get<{ Params: { slug: string } }>('/dashboard/w/:slug/settings/audit.csv', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'audit.read');
      const parsed = AuditPageQuery.safeParse(request.query ?? {});
      if (!parsed.success) return show(reply, page, request.query);
      const { cursor: _cursor, ...query } = parsed.data;
      await audit.recordExport(page.who, page.workspace.id, query);
      const body = csvStream(CSV_HEADER, audit.pages(page.workspace.id, filtersOf(parsed.data)), csvCells);
      return reply.header('content-type', CSV_TYPE).header('content-disposition', 'attachment; filename="audit-log.csv"').send(body);
    });
  };
}

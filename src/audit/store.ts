/**
 * SQL of the audit log (migration 0023; entries are inserted by record.ts, in the change's
 * transaction): the owners' list (newest first, cursor on the time-ordered id) and retention.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { AuditLogTable, Database } from '../db/tables.js';

export type AuditRow = AuditLogTable;

export interface AuditFilters {
  /** A user's or API key's id, or `cli`. */
  actor?: string;
  /** An exact action (`link.update`) or a target type's every action (`link`). */
  action?: string;
  /** A target id: the entry's one target, or one of a bulk entry's. */
  target?: string;
  from?: number;
  to?: number;
}

export function createAuditStore(db: Kysely<Database>) {
  return {
    /** Entries of the workspace, newest first, before the cursor id; `limit` rows. */
    async list(workspaceId: string, f: AuditFilters, limit: number, before?: string): Promise<AuditRow[]> {
      let q = db.selectFrom('audit_log').selectAll().where('workspace_id', '=', workspaceId);
      if (f.actor === 'cli') q = q.where('actor_type', '=', 'cli');
      else if (f.actor !== undefined) q = q.where('actor_id', '=', f.actor);
      if (f.action !== undefined) {
        const action = f.action;
        q = action.includes('.') ? q.where('action', '=', action) : q.where('target_type', '=', action);
      }
      if (f.target !== undefined) {
        const target = f.target;
        // A bulk entry's ids are a JSON array of quoted ids; ids hold no quote or LIKE wildcard.
        const pattern = `%"${target.replace(/["\\%_]/g, (c) => `\\${c}`)}"%`;
        q = q.where((eb) => eb.or([eb('target', '=', target), sql<SqlBool>`target_ids like ${pattern} escape '\\'`]));
      }
      if (f.from !== undefined) q = q.where('at', '>=', f.from);
      if (f.to !== undefined) q = q.where('at', '<', f.to);
      if (before !== undefined) q = q.where('id', '<', before);
      return q.orderBy('id', 'desc').limit(limit).execute();
    },

    /** Deletes up to `limit` entries older than `before`, every workspace (retention); returns how many. */
    async expire(before: number, limit: number): Promise<number> {
      const ids = db.selectFrom('audit_log').select('id').where('at', '<', before).limit(limit);
      const result = await db.deleteFrom('audit_log').where('id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type AuditStore = ReturnType<typeof createAuditStore>;

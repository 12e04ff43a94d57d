/**
 * Storage of UTM templates: Kysely queries only, every one filtered by the workspace, so another
 * workspace's template is never read, listed or deleted.
 */
import type { Kysely } from 'kysely';
import type { Database, TransactionStep } from '../db/tables.js';
import { lockWorkspaceRow } from '../workspaces/quota.js';
import type { UtmTemplateRow } from './schema.js';

function templateQueries(db: Kysely<Database>) {
  return {
    /** Holds the workspace row until commit, so the count checked before an insert stays true. */
    lockWorkspace: (workspaceId: string) => lockWorkspaceRow(db, workspaceId),

    /** By name, case aside (the picker's order). */
    list(workspaceId: string, limit: number): Promise<UtmTemplateRow[]> {
      return db.selectFrom('utm_templates').selectAll().where('workspace_id', '=', workspaceId).orderBy('name_key').orderBy('id').limit(limit).execute();
    },

    findById(workspaceId: string, id: string): Promise<UtmTemplateRow | undefined> {
      return db.selectFrom('utm_templates').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    async nameTaken(workspaceId: string, nameKey: string): Promise<boolean> {
      const row = await db.selectFrom('utm_templates').select('id').where('workspace_id', '=', workspaceId).where('name_key', '=', nameKey).executeTakeFirst();
      return row !== undefined;
    },

    async count(workspaceId: string): Promise<number> {
      const r = await db
        .selectFrom('utm_templates')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** `step` (the audit log's entry) runs on the same transaction. */
    async insert(row: UtmTemplateRow, step?: TransactionStep): Promise<void> {
      await db.insertInto('utm_templates').values(row).execute();
      await step?.(db);
    },
  };
}

export type UtmTemplateStore = ReturnType<typeof templateQueries> & {
  transaction<T>(fn: (tx: ReturnType<typeof templateQueries>) => Promise<T>): Promise<T>;
  /** False when the workspace has no template with this id; `step` runs in the delete's transaction. */
  delete(workspaceId: string, id: string, step?: TransactionStep): Promise<boolean>;
};

export function createUtmTemplateStore(db: Kysely<Database>): UtmTemplateStore {
  return {
    ...templateQueries(db),
    transaction: (fn) => db.transaction().execute((trx) => fn(templateQueries(trx))),
    delete: (workspaceId, id, step) =>
      db.transaction().execute(async (trx) => {
        const r = await trx.deleteFrom('utm_templates').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
        if (Number(r.numDeletedRows) === 0) return false;
        await step?.(trx);
        return true;
      }),
  };
}

/**
 * Storage access for workspaces and API keys: Kysely queries only, no rules.
 */
import type { Kysely, Selectable, Insertable, Updateable } from 'kysely';
import type { Database, TransactionStep, WorkspacesTable, ApiKeysTable } from '../db/tables.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;

export interface KeyWithWorkspace {
  key: ApiKeyRow;
  workspace: WorkspaceRow;
}

/**
 * Serialises quota-checked inserts of one workspace inside a transaction (quota.ts): on PostgreSQL
 * the no-op update holds the workspace row lock until commit, so a second request's count waits
 * for the first insert; on SQLite the write already holds the database lock.
 */
export async function lockWorkspaceRow(trx: Kysely<Database>, workspaceId: string): Promise<void> {
  await trx
    .updateTable('workspaces')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', workspaceId)
    .execute();
}

export function createWorkspaceStore(db: Kysely<Database>) {
  return {
    async insert(row: Insertable<WorkspacesTable>, note: TransactionStep = async () => {}): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('workspaces').values(row).execute();
        await note(trx);
      });
    },

    /** By id or slug. Callers scope by comparing with the authenticated workspace. */
    async findByIdOrSlug(idOrSlug: string): Promise<WorkspaceRow | undefined> {
      return db
        .selectFrom('workspaces')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
        .executeTakeFirst();
    },

    async findById(id: string): Promise<WorkspaceRow | undefined> {
      return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findBySlug(slug: string): Promise<WorkspaceRow | undefined> {
      return db.selectFrom('workspaces').selectAll().where('slug', '=', slug).executeTakeFirst();
    },

    async list(): Promise<WorkspaceRow[]> {
      return db.selectFrom('workspaces').selectAll().orderBy('created_at').execute();
    },

    async count(): Promise<number> {
      const r = await db.selectFrom('workspaces').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(r.n);
    },

    /** `note`: the audit log's, called in the write's transaction (here and below). */
    async update(workspaceId: string, patch: Updateable<WorkspacesTable>, note: TransactionStep = async () => {}): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('workspaces').set(patch).where('id', '=', workspaceId).execute();
        await note(trx);
      });
    },

    async domainsOf(workspaceId: string) {
      return db
        .selectFrom('domains')
        .select(['slug', 'primary', 'verified'])
        .where('workspace_id', '=', workspaceId)
        .orderBy('created_at')
        .limit(100)
        .execute();
    },

    async insertKey(row: Insertable<ApiKeysTable>, note: TransactionStep = async () => {}): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('api_keys').values(row).execute();
        await note(trx);
      });
    },

    /** Key lookup by hash, across workspaces: the key itself names its workspace. */
    async findKeyByHash(hash: string): Promise<KeyWithWorkspace | undefined> {
      const key = await db.selectFrom('api_keys').selectAll().where('hashed_key', '=', hash).executeTakeFirst();
      if (!key) return undefined;
      const workspace = await db.selectFrom('workspaces').selectAll().where('id', '=', key.workspace_id).executeTakeFirst();
      return workspace ? { key, workspace } : undefined;
    },

    async listKeys(workspaceId: string): Promise<ApiKeyRow[]> {
      return db.selectFrom('api_keys').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').execute();
    },

    async revokeKey(workspaceId: string, keyId: string, now: number, note: TransactionStep = async () => {}): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const r = await trx
          .updateTable('api_keys')
          .set({ revoked_at: now })
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', keyId)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        const revoked = Number(r.numUpdatedRows) > 0;
        if (revoked) await note(trx);
        return revoked;
      });
    },

    /**
     * Records a key's use at `now` unless one was recorded within `minGapMs` (by this process or
     * another: the condition is in the update). True when a row was written.
     */
    async touchKey(keyId: string, now: number, minGapMs = 0): Promise<boolean> {
      const r = await db
        .updateTable('api_keys')
        .set({ last_used_at: now })
        .where('id', '=', keyId)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - minGapMs)]))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}

export type WorkspaceStore = ReturnType<typeof createWorkspaceStore>;

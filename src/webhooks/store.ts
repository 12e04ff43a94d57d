/**
 * Storage of webhooks and of links' `webhookIds`: Kysely queries only, every one filtered by the
 * workspace, except the process-wide summaries the event registry and the click writer read
 * (`activeTriggers`, `clickRoutes`: which events anyone wants at all; `enabledReceivers`: the
 * dispatcher's; marked below).
 */
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database, TransactionStep, WebhooksTable } from '../db/tables.js';
import type { ClickRoutes, DomainEventType } from '../outbox/outbox.js';
import type { WebhookRow } from './schema.js';

export function createWebhookStore(db: Kysely<Database>) {
  return {
    async list(workspaceId: string): Promise<WebhookRow[]> {
      return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').orderBy('id').execute();
    },

    async count(workspaceId: string): Promise<number> {
      const r = await db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async find(workspaceId: string, id: string): Promise<WebhookRow | undefined> {
      return db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    },

    /** `note`: the audit log's, called in the insert's transaction. */
    async insert(row: Insertable<WebhooksTable>, note: TransactionStep = async () => {}): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('webhooks').values(row).execute();
        await note(trx);
      });
    },

    async update(workspaceId: string, id: string, patch: Updateable<WebhooksTable>, note: TransactionStep = async () => {}): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('webhooks').set(patch).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
        await note(trx);
      });
    },

    /** Deletes the webhook, its link attachments, its deliveries and its click work; false when it was not there. */
    async delete(workspaceId: string, id: string, note: TransactionStep = async () => {}): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const r = await trx.deleteFrom('webhooks').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
        await trx.deleteFrom('link_webhooks').where('workspace_id', '=', workspaceId).where('webhook_id', '=', id).execute();
        await trx.deleteFrom('webhook_deliveries').where('workspace_id', '=', workspaceId).where('webhook_id', '=', id).execute();
        // Only when the webhook was this workspace's: cursors carry no workspace id.
        if (Number(r.numDeletedRows) > 0) await trx.deleteFrom('webhook_click_cursors').where('webhook_id', '=', id).execute();
        if (Number(r.numDeletedRows) > 0) await note(trx);
        return Number(r.numDeletedRows) > 0;
      });
    },

    /** Which of `ids` are links of the workspace. */
    async existingLinkIds(workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
      if (!ids.length) return new Set();
      const rows = await db.selectFrom('links').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', [...ids]).execute();
      return new Set(rows.map((r) => r.id));
    },

    /** Which of `ids` are folders of the workspace. */
    async existingFolderIds(workspaceId: string, ids: readonly string[]): Promise<Set<string>> {
      if (!ids.length) return new Set();
      const rows = await db.selectFrom('folders').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', [...ids]).execute();
      return new Set(rows.map((r) => r.id));
    },

    /** Enabled webhooks of the workspace taking `type` (the fan-out's candidates). */
    async enabledFor(workspaceId: string, type: DomainEventType): Promise<WebhookRow[]> {
      const rows = await db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId).where('disabled_at', 'is', null).execute();
      return rows.filter((r) => (JSON.parse(r.triggers) as string[]).includes(type));
    },

    /** Process-wide (not per workspace): every enabled webhook's workspace and URL, for the dispatcher's fairness. */
    async enabledReceivers(): Promise<{ id: string; workspace_id: string; url: string }[]> {
      return db.selectFrom('webhooks').select(['id', 'workspace_id', 'url']).where('disabled_at', 'is', null).execute();
    },

    /** Process-wide (not per workspace): the triggers of every enabled webhook. */
    async activeTriggers(): Promise<Set<DomainEventType>> {
      const rows = await db.selectFrom('webhooks').select('triggers').where('disabled_at', 'is', null).execute();
      return new Set(rows.flatMap((r) => JSON.parse(r.triggers) as DomainEventType[]));
    },

    /**
     * Process-wide (not per workspace): which `link.clicked` webhooks cover which clicks, for the
     * click writer (ClickRoutes): per workspace (linkScope workspace), and per link (listed, in a
     * listed folder, or attached through the link's `webhookIds`).
     */
    async clickRoutes(): Promise<ClickRoutes> {
      const hooks = (await db.selectFrom('webhooks').select(['id', 'workspace_id', 'triggers', 'link_scope', 'link_ids', 'folder_ids']).where('disabled_at', 'is', null).execute())
        .filter((r) => (JSON.parse(r.triggers) as string[]).includes('link.clicked'));
      const workspaces: Record<string, string[]> = {};
      const links: Record<string, string[]> = {};
      const add = (to: Record<string, string[]>, key: string, hookId: string) => {
        const list = (to[key] ??= []);
        if (!list.includes(hookId)) list.push(hookId);
      };
      for (const h of hooks) {
        if (h.link_scope === 'workspace') add(workspaces, h.workspace_id, h.id);
        else if (h.link_scope === 'links') for (const id of JSON.parse(h.link_ids) as string[]) add(links, id, h.id);
        else if (h.link_scope === 'folders') {
          const ids = JSON.parse(h.folder_ids) as string[];
          if (!ids.length) continue;
          const rows = await db.selectFrom('links').select('id').where('workspace_id', '=', h.workspace_id).where('folder_id', 'in', ids).execute();
          for (const r of rows) add(links, r.id, h.id);
        }
      }
      if (hooks.length) {
        const attached = await db.selectFrom('link_webhooks').select(['link_id', 'webhook_id']).where('webhook_id', 'in', hooks.map((h) => h.id)).execute();
        for (const r of attached) add(links, r.link_id, r.webhook_id);
      }
      return { workspaces, links };
    },
  };
}
export type WebhookStore = ReturnType<typeof createWebhookStore>;

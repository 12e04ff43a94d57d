/**
 * Webhook rules: the body's consistency (`linkScope` exactly when `link.clicked` is a trigger,
 * the ids it names in the workspace), secrets generated when not given, re-enabling by PATCH,
 * and the deliveries' reads, test sends and redeliveries. Another workspace's webhook answers
 * exactly like a missing one.
 */
import { fieldsOf, record, type Who } from '../audit/record.js';
import { randomBytes } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { WebhooksTable } from '../db/tables.js';
import type { DomainEventType } from '../outbox/outbox.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import type { WebhookStore } from './store.js';
import type { DeliveryStore } from './delivery-store.js';
import { sampleData } from './samples.js';
import {
  MAX_WEBHOOKS_PER_WORKSPACE, toDeliveryResponse, toWebhookResponse,
  type CreateWebhookInput, type DeliveryResponse, type LinkScope, type UpdateWebhookInput, type WebhookResponse, type WebhookRow,
} from './schema.js';

const NOT_FOUND = 'Webhook not found.';
/** Deliveries `GET /webhooks/{id}/deliveries` answers, newest first. */
export const DELIVERIES_LISTED = 100;

/** `whsec_` + standard base64 of 24 random bytes (32 characters). */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

interface Shape {
  triggers: DomainEventType[];
  linkScope: LinkScope | null;
  linkIds: string[];
  folderIds: string[];
}

export function createWebhookService(deps: {
  store: WebhookStore;
  deliveries: DeliveryStore;
  now: () => number;
  changed: () => Promise<void>;
  nudge: () => void;
  /** Why a receiver URL is refused (src/outbound/: not a public address), or null. */
  refusedUrl: (url: string) => Promise<string | null>;
}) {
  const { store, deliveries, now } = deps;

  async function getRow(workspaceId: string, id: string): Promise<WebhookRow> {
    const row = await store.find(workspaceId, id);
    if (!row) throw new ApiError('not_found', NOT_FOUND);
    return row;
  }

  /** The scope rule and the named ids; throws 422 naming what is wrong. */
  async function checkShape(workspaceId: string, s: Shape): Promise<Shape> {
    const clicked = s.triggers.includes('link.clicked');
    if (clicked && !s.linkScope) throw new ApiError('unprocessable_entity', 'linkScope is required when triggers include link.clicked.');
    if (!clicked && s.linkScope) throw new ApiError('unprocessable_entity', 'linkScope is only accepted when triggers include link.clicked.');
    const linkIds = s.linkScope === 'links' ? [...new Set(s.linkIds)] : [];
    const folderIds = s.linkScope === 'folders' ? [...new Set(s.folderIds)] : [];
    const links = await store.existingLinkIds(workspaceId, linkIds);
    const badLinks = linkIds.filter((id) => !links.has(id));
    if (badLinks.length) throw new ApiError('unprocessable_entity', `Invalid linkIds detected: ${badLinks.join(', ')}`);
    const folders = await store.existingFolderIds(workspaceId, folderIds);
    const badFolders = folderIds.filter((id) => !folders.has(id));
    if (badFolders.length) throw new ApiError('unprocessable_entity', `Invalid folderIds detected: ${badFolders.join(', ')}`);
    return { triggers: s.triggers, linkScope: s.linkScope, linkIds, folderIds };
  }

  /** A receiver the dispatcher would refuse is refused now, with the reason (422). */
  async function checkUrl(url: string): Promise<void> {
    const why = await deps.refusedUrl(url);
    if (why) throw new ApiError('unprocessable_entity', `url: ${why}`);
  }

  return {
    async create(workspaceId: string, input: CreateWebhookInput, who?: Who): Promise<WebhookResponse> {
      const shape = await checkShape(workspaceId, { triggers: input.triggers, linkScope: input.linkScope ?? null, linkIds: input.linkIds ?? [], folderIds: input.folderIds ?? [] });
      await checkUrl(input.url);
      if ((await store.count(workspaceId)) >= MAX_WEBHOOKS_PER_WORKSPACE) {
        throw new ApiError('forbidden', `A workspace can have at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks.`);
      }
      const t = now();
      const row: WebhookRow = {
        id: newId('wh', t), workspace_id: workspaceId, name: input.name, url: input.url, secret: input.secret ?? newSecret(),
        triggers: JSON.stringify(shape.triggers), link_scope: shape.linkScope, link_ids: JSON.stringify(shape.linkIds), folder_ids: JSON.stringify(shape.folderIds),
        disabled_at: null, consecutive_failures: 0, created_at: t, updated_at: t,
      };
      await store.insert(row, (trx) => record(trx, who, { workspaceId, action: 'webhook.create', targetIds: row.id, changes: { name: row.name, url: row.url, triggers: shape.triggers } }));
      await deps.changed();
      return toWebhookResponse(row);
    },

    async list(workspaceId: string): Promise<WebhookResponse[]> {
      return (await store.list(workspaceId)).map(toWebhookResponse);
    },

    async get(workspaceId: string, id: string): Promise<WebhookResponse> {
      return toWebhookResponse(await getRow(workspaceId, id));
    },

    /** Any PATCH also re-enables a disabled webhook and starts its failure count over. */
    async update(workspaceId: string, id: string, input: UpdateWebhookInput, who?: Who): Promise<WebhookResponse> {
      const row = await getRow(workspaceId, id);
      const current = toWebhookResponse(row);
      const triggers = input.triggers ?? current.triggers;
      const linkScope = input.linkScope !== undefined ? input.linkScope : triggers.includes('link.clicked') ? current.linkScope : null;
      const shape = await checkShape(workspaceId, { triggers, linkScope, linkIds: input.linkIds ?? current.linkIds, folderIds: input.folderIds ?? current.folderIds });
      if (input.url !== undefined) await checkUrl(input.url);
      const patch: Updateable<WebhooksTable> = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.secret !== undefined ? { secret: input.secret } : {}),
        triggers: JSON.stringify(shape.triggers), link_scope: shape.linkScope, link_ids: JSON.stringify(shape.linkIds), folder_ids: JSON.stringify(shape.folderIds),
        disabled_at: null, consecutive_failures: 0, updated_at: now(),
      };
      await store.update(workspaceId, id, patch, (trx) => record(trx, who, { workspaceId, action: 'webhook.update', targetIds: id, changes: { fields: fieldsOf(input) } }));
      await deps.changed();
      deps.nudge();
      return toWebhookResponse({ ...row, ...patch } as WebhookRow);
    },

    /**
     * Pauses a webhook by hand (the dashboard's "Disable"): no new event is queued for it until an
     * update re-enables it, exactly as after the dispatcher disabled it for failing deliveries.
     */
    async disable(workspaceId: string, id: string, who?: Who): Promise<WebhookResponse> {
      const row = await getRow(workspaceId, id);
      if (row.disabled_at !== null) return toWebhookResponse(row);
      const t = now();
      const patch: Updateable<WebhooksTable> = { disabled_at: t, updated_at: t };
      await store.update(workspaceId, id, patch, (trx) => record(trx, who, { workspaceId, action: 'webhook.disable', targetIds: id }));
      await deps.changed();
      return toWebhookResponse({ ...row, ...patch } as WebhookRow);
    },

    async delete(workspaceId: string, id: string, who?: Who): Promise<{ id: string }> {
      if (!(await store.delete(workspaceId, id, (trx) => record(trx, who, { workspaceId, action: 'webhook.delete', targetIds: id })))) throw new ApiError('not_found', NOT_FOUND);
      await deps.changed();
      return { id };
    },

    /** Queues a sample event of `trigger` for this webhook alone (listed with its deliveries). */
    async test(workspaceId: string, id: string, trigger: DomainEventType, who?: Who): Promise<DeliveryResponse> {
      const hook = await getRow(workspaceId, id);
      const t = now();
      const eventId = newId('evt', t);
      const body = JSON.stringify({ id: eventId, event: trigger, createdAt: new Date(t).toISOString(), data: sampleData(trigger, workspaceId, t) });
      const row = {
        id: newId('whd', t), webhook_id: hook.id, workspace_id: workspaceId, event_id: eventId, event: trigger, body,
        attempts: 0, next_attempt_at: t, delivered_at: null, status_code: null, latency_ms: null, error: null, created_at: t,
      };
      await deliveries.insert([row], (trx) => record(trx, who, { workspaceId, action: 'webhook.test', targetIds: hook.id, changes: { trigger } }));
      deps.nudge();
      return toDeliveryResponse(row);
    },

    async deliveries(workspaceId: string, id: string): Promise<DeliveryResponse[]> {
      await getRow(workspaceId, id);
      const rows = await deliveries.list(workspaceId, id, DELIVERIES_LISTED);
      const attempts = await deliveries.attempts(workspaceId, id, rows.map((r) => r.id));
      return rows.map((r) => toDeliveryResponse(r, attempts));
    },

    async redeliver(workspaceId: string, id: string, deliveryId: string, who?: Who): Promise<DeliveryResponse> {
      await getRow(workspaceId, id);
      const found = await deliveries.find(workspaceId, id, deliveryId);
      if (!found) throw new ApiError('not_found', 'Delivery not found.');
      const t = now();
      await deliveries.redeliver(workspaceId, deliveryId, t, (trx) => record(trx, who, { workspaceId, action: 'webhook.redeliver', targetIds: id, changes: { deliveryId } }));
      deps.nudge();
      return toDeliveryResponse({ ...found, next_attempt_at: t, delivered_at: null }, await deliveries.attempts(workspaceId, id, [deliveryId]));
    },
  };
}
export type WebhookService = ReturnType<typeof createWebhookService>;

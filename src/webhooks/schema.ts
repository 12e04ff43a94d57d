/**
 * Webhook request and response schemas, and the row → response mapper. The published service
 * keeps its webhook API out of its public document; Waymark documents it (issue 15).
 */
import { z } from 'zod';
import type { Selectable } from 'kysely';
import type { WebhooksTable, WebhookAttemptsTable, WebhookDeliveriesTable } from '../db/tables.js';
import { DOMAIN_EVENT_TYPES, type DomainEventType } from '../outbox/outbox.js';
import { MAX_LIST_ITEMS } from '../http/lists.js';
import { webUrlField, WEB_URL_MAX } from '../web-url.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

export const LINK_SCOPES = ['workspace', 'folders', 'links'] as const;
export type LinkScope = (typeof LINK_SCOPES)[number];

/** Webhooks per workspace: a cap on what each event fans out to. */
export const MAX_WEBHOOKS_PER_WORKSPACE = 100;

/**
 * `whsec_` + standard base64 (the Standard Webhooks form): the whole string keys `Dub-Signature`,
 * the decoded base64 part keys `webhook-signature`, so one secret serves both.
 */
export const SECRET_PATTERN = /^whsec_(?:[A-Za-z0-9+/]{4}){4,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const Name = z.string().trim().min(1).max(190);
const Url = webUrlField({ max: WEB_URL_MAX });
const Secret = z.string().max(200).regex(SECRET_PATTERN, 'must be "whsec_" followed by standard base64 of at least 12 bytes');
const Triggers = z
  .array(z.enum(DOMAIN_EVENT_TYPES))
  .min(1)
  .max(DOMAIN_EVENT_TYPES.length)
  .transform((t) => [...new Set(t)]);
const Ids = z.array(z.string().min(1).max(190)).max(MAX_LIST_ITEMS);

export const CreateWebhookBody = z.object({
  name: Name,
  url: Url,
  secret: Secret.optional(),
  triggers: Triggers,
  linkScope: z.enum(LINK_SCOPES).nullish(),
  linkIds: Ids.optional(),
  folderIds: Ids.optional(),
});
export type CreateWebhookInput = z.infer<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z.object({
  name: Name.optional(),
  url: Url.optional(),
  secret: Secret.optional(),
  triggers: Triggers.optional(),
  linkScope: z.enum(LINK_SCOPES).nullish(),
  linkIds: Ids.optional(),
  folderIds: Ids.optional(),
});
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookBody>;

export const WebhookParams = z.object({ webhookId: z.string().min(1) });
export const DeliveryParams = z.object({ webhookId: z.string().min(1), deliveryId: z.string().min(1) });
export const TestWebhookBody = z.object({ trigger: z.enum(DOMAIN_EVENT_TYPES) });

export const WebhookResponse = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string(),
    secret: z.string(),
    triggers: z.array(z.enum(DOMAIN_EVENT_TYPES)),
    linkScope: z.enum(LINK_SCOPES).nullable(),
    linkIds: z.array(z.string()),
    folderIds: z.array(z.string()),
    disabledAt: z.string().nullable(),
    consecutiveFailures: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Webhook' });
export type WebhookResponse = z.infer<typeof WebhookResponse>;

/** One attempt of a delivery (every attempt is kept 30 days, newest first). */
export const DeliveryAttemptResponse = z
  .object({
    attempt: z.number(),
    sentAt: z.string(),
    statusCode: z.number().nullable(),
    latencyMs: z.number().nullable(),
    /** The first 1 KB of the receiver's answer. */
    response: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type DeliveryAttemptResponse = z.infer<typeof DeliveryAttemptResponse>;

export const DeliveryResponse = z
  .object({
    id: z.string(),
    eventId: z.string(),
    event: z.enum(DOMAIN_EVENT_TYPES),
    attempt: z.number(),
    status: z.enum(['pending', 'delivered', 'failed']),
    statusCode: z.number().nullable(),
    latencyMs: z.number().nullable(),
    error: z.string().nullable(),
    nextRetryAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
    /** Every attempt of this delivery still kept, newest first. */
    attempts: z.array(DeliveryAttemptResponse),
  })
  .meta({ id: 'WebhookDelivery' });
export type DeliveryResponse = z.infer<typeof DeliveryResponse>;

export const DeleteWebhookResponse = z.object({ id: z.string() });

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export function toWebhookResponse(row: WebhookRow): WebhookResponse {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    secret: row.secret,
    triggers: JSON.parse(row.triggers) as DomainEventType[],
    linkScope: row.link_scope as LinkScope | null,
    linkIds: JSON.parse(row.link_ids) as string[],
    folderIds: JSON.parse(row.folder_ids) as string[],
    disabledAt: iso(row.disabled_at),
    consecutiveFailures: Number(row.consecutive_failures),
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

export function toAttemptResponse(row: AttemptRow): DeliveryAttemptResponse {
  return {
    attempt: Number(row.attempt),
    sentAt: iso(row.sent_at)!,
    statusCode: row.status_code === null ? null : Number(row.status_code),
    latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
    response: row.response,
    error: row.error,
  };
}

/** The delivery with its attempts (rows of any deliveries: this one's are picked, kept newest first). */
export function toDeliveryResponse(row: DeliveryRow, attempts: readonly AttemptRow[] = []): DeliveryResponse {
  const status = row.delivered_at !== null ? 'delivered' : row.next_attempt_at !== null ? 'pending' : 'failed';
  return {
    id: row.id,
    eventId: row.event_id,
    event: row.event as DomainEventType,
    attempt: Number(row.attempts),
    status,
    statusCode: row.status_code === null ? null : Number(row.status_code),
    latencyMs: row.latency_ms === null ? null : Number(row.latency_ms),
    error: row.error,
    nextRetryAt: status === 'pending' ? iso(row.next_attempt_at) : null,
    deliveredAt: iso(row.delivered_at),
    createdAt: iso(row.created_at)!,
    attempts: attempts.filter((a) => a.delivery_id === row.id).map(toAttemptResponse),
  };
}

/**
 * `GET/POST /webhooks`, `GET/PATCH/DELETE /webhooks/{webhookId}`, `POST /webhooks/{webhookId}/test`,
 * `GET /webhooks/{webhookId}/deliveries`, `POST /webhooks/{webhookId}/deliveries/{deliveryId}/redeliver`.
 * Business plan or above, as on the published service.
 */
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WebhookService } from './service.js';
import { CreateWebhookBody, DeleteWebhookResponse, DeliveryParams, DeliveryResponse, TestWebhookBody, UpdateWebhookBody, WebhookParams, WebhookResponse } from './schema.js';
import { whoOf } from '../audit/record.js';

const tags = ['Webhooks'];
const read = { permission: 'webhooks.read', minPlan: 'business' } as const;
const write = { permission: 'webhooks.write', minPlan: 'business' } as const;

export const webhookRoutes: FastifyPluginAsyncZod<{ webhooks: WebhookService }> = async (app, { webhooks }) => {
  app.get(
    '/webhooks',
    { config: read, schema: { tags, operationId: 'listWebhooks', summary: 'Retrieve the webhooks of the workspace', response: { 200: z.array(WebhookResponse) } } },
    (req) => webhooks.list(req.auth.workspaceId),
  );

  app.post(
    '/webhooks',
    { config: write, schema: { tags, operationId: 'createWebhook', summary: 'Create a webhook', body: CreateWebhookBody, response: { 200: WebhookResponse } } },
    (req) => webhooks.create(req.auth.workspaceId, req.body, whoOf(req)),
  );

  app.get(
    '/webhooks/:webhookId',
    { config: read, schema: { tags, operationId: 'getWebhook', summary: 'Retrieve a webhook', params: WebhookParams, response: { 200: WebhookResponse } } },
    (req) => webhooks.get(req.auth.workspaceId, req.params.webhookId),
  );

  app.patch(
    '/webhooks/:webhookId',
    {
      config: write,
      schema: {
        tags, operationId: 'updateWebhook', summary: 'Update a webhook (and enable it again if it was disabled)',
        params: WebhookParams, body: UpdateWebhookBody, response: { 200: WebhookResponse },
      },
    },
    (req) => webhooks.update(req.auth.workspaceId, req.params.webhookId, req.body ?? {}, whoOf(req)),
  );

  app.delete(
    '/webhooks/:webhookId',
    { config: write, schema: { tags, operationId: 'deleteWebhook', summary: 'Delete a webhook', params: WebhookParams, response: { 200: DeleteWebhookResponse } } },
    (req) => webhooks.delete(req.auth.workspaceId, req.params.webhookId, whoOf(req)),
  );

  app.post(
    '/webhooks/:webhookId/test',
    {
      config: write,
      schema: { tags, operationId: 'testWebhook', summary: 'Send a sample event to a webhook', params: WebhookParams, body: TestWebhookBody, response: { 200: DeliveryResponse } },
    },
    (req) => webhooks.test(req.auth.workspaceId, req.params.webhookId, req.body.trigger, whoOf(req)),
  );

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      config: read,
      schema: { tags, operationId: 'listWebhookDeliveries', summary: 'Retrieve the last deliveries of a webhook', params: WebhookParams, response: { 200: z.array(DeliveryResponse) } },
    },
    (req) => webhooks.deliveries(req.auth.workspaceId, req.params.webhookId),
  );

  app.post(
    '/webhooks/:webhookId/deliveries/:deliveryId/redeliver',
    {
      config: write,
      schema: { tags, operationId: 'redeliverWebhookDelivery', summary: 'Send a delivery again', params: DeliveryParams, response: { 200: DeliveryResponse } },
    },
    (req) => webhooks.redeliver(req.auth.workspaceId, req.params.webhookId, req.params.deliveryId, whoOf(req)),
  );
};

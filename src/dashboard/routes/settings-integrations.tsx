/**
 * Settings → API keys and webhooks.
 *
 * - Keys: `workspaces.createKey` / `listKeys` / `revokeKey`, the same calls as the CLI's
 *   `keys create` (scopes checked by `parseScopes`); the key is in the answer to the create form
 *   only. Owners only (`keys.manage`); other roles see the list.
 * - Webhooks: the webhooks service with the API's `CreateWebhookBody`, on the API's plan (Business
 *   or higher, `assertPlan`). Owners only (`settings.manage`). "Disable" pauses a webhook
 *   (`webhooks.disable`); "Enable" is an empty update, which re-enables as the API's PATCH does.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { assertPlan } from '../../access/auth.js';
import { DOMAIN_EVENT_TYPES } from '../../outbox/outbox.js';
import { CreateWebhookBody } from '../../webhooks/schema.js';
import { RESOURCES, parseScopes } from '../../workspaces/api-keys.js';
import type { WorkspaceService } from '../../workspaces/service.js';
import { parseInput } from '../../users/schema.js';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { workspacePath } from '../layout.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { KeysPage, WebhookPage, WebhooksPage, type KeyView } from '../pages/settings-integrations.js';
import { fieldsOf, frameOf, orShow } from './settings.js';

type Form = Record<string, string | undefined>;
type Params = { slug: string };
type ItemParams = { slug: string; id: string };

const KeyName = z.string().trim().min(1, 'must not be empty').max(190);
const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The form's access choice → the API's scopes (null: full access). */
export function scopesOf(body: Form | undefined): string[] | null {
  const access = body?.access ?? 'all';
  if (access === 'all') return null;
  if (access === 'read') return ['apis.read'];
  if (access !== 'custom') throw new ApiError('unprocessable_entity', 'access: must be all, read or custom');
  const picked: string[] = [];
  for (const r of RESOURCES) {
    const level = body?.[`scope_${r}`];
    if (level === 'read' || level === 'write') picked.push(`${r}.${level}`);
  }
  if (!picked.length) throw new ApiError('unprocessable_entity', 'scopes: choose at least one resource, or full or read-only access.');
  try {
    return parseScopes(picked.join(' '));
  } catch (err) {
    throw new ApiError('unprocessable_entity', (err as Error).message);
  }
}

export function integrationRoutes(kit: Kit, services: PageServices, workspaces: WorkspaceService): FastifyPluginAsync {
  const back = (page: WorkspacePage, rest: string) => workspacePath(page.workspace.slug, `/settings/${rest}`);

  async function showKeys(reply: FastifyReply, page: WorkspacePage, extra: { created?: { name: string; key: string }; error?: string } = {}, status = 200) {
    const keys: KeyView[] = (await workspaces.listKeys(page.workspace.id)).map((k) => ({
      id: k.id,
      name: k.name,
      partialKey: k.partial_key,
      scopes: k.scopes,
      createdAt: iso(k.created_at)!,
      lastUsedAt: iso(k.last_used_at),
      revokedAt: iso(k.revoked_at),
    }));
    return sendPage(reply, <KeysPage frame={frameOf(page)} keys={keys} {...extra} />, status);
  }

  async function showWebhooks(reply: FastifyReply, page: WorkspacePage, error?: string, status = 200) {
    const webhooks = await services.webhooks.list(page.workspace.id);
    return sendPage(reply, <WebhooksPage frame={frameOf(page)} webhooks={webhooks} error={error} />, status);
  }

  return async (app) => {
    app.get<{ Params: Params }>('/dashboard/w/:slug/settings/keys', { schema: HIDDEN }, async (request, reply) =>
      showKeys(reply, await kit.workspacePage(request, request.params.slug)),
    );
    app.post<{ Params: Params; Body: Form }>('/dashboard/w/:slug/settings/keys', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'keys.manage');
      let created: { name: string; key: string } | undefined;
      return orShow(
        async () => {
          const name = parseInput(KeyName, request.body?.name ?? '');
          const { key } = await workspaces.createKey(page.workspace.id, { name, scopes: scopesOf(request.body) }, page.who);
          created = { name, key };
        },
        (error, status) => showKeys(reply, page, { error }, status),
        // The key is shown in this answer only: no redirect, never stored in plain text.
        () => showKeys(reply, page, { created }, 201),
      );
    });
    app.post<{ Params: ItemParams }>('/dashboard/w/:slug/settings/keys/:id/revoke', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'keys.manage');
      const revoked = await workspaces.revokeKey(page.workspace.id, request.params.id, page.who);
      if (!revoked) throw new ApiError('not_found', 'API key not found.');
      return redirect(reply, back(page, 'keys'));
    });

    app.get<{ Params: Params }>('/dashboard/w/:slug/settings/webhooks', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      return showWebhooks(reply, page);
    });
    app.post<{ Params: Params; Body: Form }>('/dashboard/w/:slug/settings/webhooks', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      const triggers = DOMAIN_EVENT_TYPES.filter((t) => request.body?.[`trigger_${t}`]);
      return orShow(
        () => services.webhooks.create(page.workspace.id, parseInput(CreateWebhookBody, { ...fieldsOf(request.body, ['name', 'url']), triggers }), page.who),
        (error, status) => showWebhooks(reply, page, error, status),
        () => redirect(reply, back(page, 'webhooks')),
      );
    });
    app.get<{ Params: ItemParams }>('/dashboard/w/:slug/settings/webhooks/:id', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      const webhook = await services.webhooks.get(page.workspace.id, request.params.id);
      const deliveries = await services.webhooks.deliveries(page.workspace.id, webhook.id);
      return sendPage(reply, <WebhookPage frame={frameOf(page)} webhook={webhook} deliveries={deliveries} />);
    });
    app.post<{ Params: ItemParams }>('/dashboard/w/:slug/settings/webhooks/:id/enable', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      await services.webhooks.update(page.workspace.id, request.params.id, {}, page.who);
      return redirect(reply, back(page, 'webhooks'));
    });
    app.post<{ Params: ItemParams }>('/dashboard/w/:slug/settings/webhooks/:id/disable', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      await services.webhooks.disable(page.workspace.id, request.params.id, page.who);
      return redirect(reply, back(page, 'webhooks'));
    });
    app.post<{ Params: ItemParams }>('/dashboard/w/:slug/settings/webhooks/:id/delete', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      await services.webhooks.delete(page.workspace.id, request.params.id, page.who);
      return redirect(reply, back(page, 'webhooks'));
    });
  };
}

/**
 * Settings → API keys and webhooks.
 *
 * - Keys: `workspaces.createKey` / `listKeys` / `revokeKey`, the same calls as the CLI's
 *   `keys create` (scopes checked by `parseScopes`); the key is in the answer to the create form
 *   only. Owners only (`keys.manage`); other roles see the list.
 * - Webhooks: the webhooks service with the API's `CreateWebhookBody`, on the API's plan (Business
 *   or higher, `assertPlan`). Owners only (`settings.manage`). "Disable" pauses a webhook
 *   (`webhooks.disable`); "Enable" is an empty update, which re-enables as the API's PATCH does;
 *   "Edit" (`…/webhooks/:id/edit`) is the create form filled in, saved as that PATCH.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import { assertPlan } from '../../access/auth.js';
import { RESOURCES, parseScopes } from '../../workspaces/api-keys.js';
import type { WorkspaceService } from '../../workspaces/service.js';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { workspacePath } from '../layout.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { KeysPage, WEBHOOK_LINK_CHOICES, WebhookPage, WebhooksPage, type KeyView, type WebhookChoices, type WebhookFormValues } from '../pages/settings-integrations.js';
import { WebhookEditPage } from '../pages/webhook-form.js';
import type { LinkService } from '../../links/service.js';
import { ListFoldersQuery } from '../../folders/schema.js';
import { callerOf } from './link-choices.js';
import { linkLabel } from './analytics.js';
import { formInput, type FormErrors } from '../form-errors.js';
import { webhookFormInput, webhookFormValues, webhookRefusal } from '../webhook-form.js';
import { frameOf, orShow } from './settings.js';

type Form = Record<string, string | undefined>;
type Params = { slug: string };
type ItemParams = { slug: string; id: string };

const KeyName = z.string().trim().min(1).max(190);
const KEY_FIELDS = { name: 'the name', access: 'the access' };
const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The form's access choice → the API's scopes (null: full access). */
export function scopesOf(body: Form | undefined): string[] | null {
  const access = body?.access ?? 'all';
  if (access === 'all') return null;
  if (access === 'read') return ['apis.read'];
  if (access !== 'custom') throw new ApiError('unprocessable_entity', 'Choose full access, read only or per resource.', { field: 'access' });
  const picked: string[] = [];
  for (const r of RESOURCES) {
    const level = body?.[`scope_${r}`];
    if (level === 'read' || level === 'write') picked.push(`${r}.${level}`);
  }
  if (!picked.length) throw new ApiError('unprocessable_entity', 'Choose Read or Read and write for at least one resource, or choose full or read-only access.', { field: 'access' });
  try {
    return parseScopes(picked.join(' '));
  } catch (err) {
    throw new ApiError('unprocessable_entity', (err as Error).message, { field: 'access' });
  }
}

export function integrationRoutes(kit: Kit, services: PageServices, workspaces: WorkspaceService, links: LinkService): FastifyPluginAsync {
  const back = (page: WorkspacePage, rest: string) => workspacePath(page.workspace.slug, `/settings/${rest}`);

  async function showKeys(reply: FastifyReply, page: WorkspacePage, extra: { created?: { name: string; key: string }; errors?: FormErrors; values?: { name: string } } = {}, status = 200) {
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

  /** The newest links and every folder; `chosen` links (a webhook's own) are listed even when older. */
  async function webhookChoices(page: WorkspacePage, chosen: readonly string[] = []): Promise<WebhookChoices> {
    const [newest, folders] = await Promise.all([
      links.list(callerOf(page), { pageSize: WEBHOOK_LINK_CHOICES + 1, sortBy: 'createdAt', sortOrder: 'desc' }),
      services.folders.list(page.workspace.id, ListFoldersQuery.parse({})),
    ]);
    const listed = newest.slice(0, WEBHOOK_LINK_CHOICES);
    const missing = chosen.filter((id) => !listed.some((l) => l.id === id));
    const older = (await Promise.all(missing.map((id) => links.get(callerOf(page), id).catch((err) => {
      if (err instanceof ApiError && err.status === 404) return undefined;
      throw err;
    })))).filter((l) => l !== undefined);
    return {
      links: [...older, ...listed].map((l) => ({ value: l.id, label: linkLabel(l) })),
      folders: folders.map((f) => ({ id: f.id, name: f.name })),
      moreLinks: newest.length > WEBHOOK_LINK_CHOICES,
    };
  }

  async function showWebhookEdit(reply: FastifyReply, page: WorkspacePage, id: string, form: { errors?: FormErrors; values?: WebhookFormValues } = {}, status = 200) {
    const webhook = await services.webhooks.get(page.workspace.id, id);
    const choices = await webhookChoices(page, form.values?.linkIds ?? webhook.linkIds);
    return sendPage(reply, <WebhookEditPage frame={frameOf(page)} webhook={webhook} choices={choices} {...form} />, status);
  }

  async function showWebhooks(reply: FastifyReply, page: WorkspacePage, form: { errors?: FormErrors; values?: WebhookFormValues } = {}, status = 200) {
    const [webhooks, choices] = await Promise.all([services.webhooks.list(page.workspace.id), webhookChoices(page)]);
    return sendPage(reply, <WebhooksPage frame={frameOf(page)} webhooks={webhooks} choices={choices} {...form} />, status);
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
          const { name } = formInput(z.object({ name: KeyName }), { name: request.body?.name ?? '' }, KEY_FIELDS);
          const { key } = await workspaces.createKey(page.workspace.id, { name, scopes: scopesOf(request.body) }, page.who);
          created = { name, key };
        },
        (errors, status) => showKeys(reply, page, { errors, values: { name: request.body?.name ?? '' } }, status),
        // The key is shown in this answer only: no redirect, never stored in plain text.
        () => showKeys(reply, page, { created }, 201),
        KEY_FIELDS,
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
      const values = webhookFormValues(request.body);
      const checked = webhookFormInput(values);
      if (!checked.ok) return showWebhooks(reply, page, { errors: checked.errors, values }, 422);
      try {
        await services.webhooks.create(page.workspace.id, checked.input, page.who);
      } catch (err) {
        return showWebhooks(reply, page, { errors: webhookRefusal(err), values }, err instanceof ApiError ? err.status : 422);
      }
      return redirect(reply, back(page, 'webhooks'));
    });
    app.get<{ Params: ItemParams }>('/dashboard/w/:slug/settings/webhooks/:id', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      const webhook = await services.webhooks.get(page.workspace.id, request.params.id);
      const deliveries = await services.webhooks.deliveries(page.workspace.id, webhook.id);
      return sendPage(reply, <WebhookPage frame={frameOf(page)} webhook={webhook} deliveries={deliveries} />);
    });
    // Editing: the create form's fields, filled in; saved as the API's PATCH (which also re-enables).
    app.get<{ Params: ItemParams }>('/dashboard/w/:slug/settings/webhooks/:id/edit', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      return showWebhookEdit(reply, page, request.params.id);
    });
    app.post<{ Params: ItemParams; Body: Form }>('/dashboard/w/:slug/settings/webhooks/:id/edit', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      assertPlan(apiCallerOf(page), 'business', 'Webhooks');
      const { id } = request.params;
      const values = webhookFormValues(request.body);
      const checked = webhookFormInput(values);
      if (!checked.ok) return showWebhookEdit(reply, page, id, { errors: checked.errors, values }, 422);
      try {
        await services.webhooks.update(page.workspace.id, id, checked.input, page.who);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) throw err;
        return showWebhookEdit(reply, page, id, { errors: webhookRefusal(err), values }, err instanceof ApiError ? err.status : 422);
      }
      return redirect(reply, back(page, `webhooks/${encodeURIComponent(id)}`));
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

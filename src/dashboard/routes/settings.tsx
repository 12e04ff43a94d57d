/**
 * Settings → general, domains, tags and folders, through the API's services with the API's
 * request schemas (`UpdateWorkspaceBody`, `CreateDomainBody`, `CreateTagBody`, …), so a form is
 * refused exactly where the API would refuse the same body. A refused form is shown again with
 * the message and the API's status; a change answers 303 back to its page.
 *
 * Roles (users/roles.ts): name, slug and domains need `settings.manage` (owners); tags and folders
 * `tags.write` / `folders.write` (members and owners).
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { z } from 'zod';
import { ApiError } from '../../http/errors.js';
import type { Config } from '../../config.js';
import { CreateDomainBody, ListDomainsQuery, UpdateDomainBody } from '../../domains/schema.js';
import { CreateFolderBody, ListFoldersQuery, UpdateFolderBody } from '../../folders/schema.js';
import { CreateTagBody, ListTagsQuery, UpdateTagBody } from '../../tags/schema.js';
import { UpdateWorkspaceBody } from '../../workspaces/schema.js';
import type { WorkspaceService } from '../../workspaces/service.js';
import { FormRefusal, errorsOfRefusal, formInput, type FormErrors } from '../form-errors.js';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { workspacePath } from '../layout.js';
import { apiCallerOf, type PageServices } from '../services.js';
import { DomainsPage, GeneralPage, NamedItemsPage, type WorkspaceFrame } from '../pages/settings.js';

type Form = Record<string, string | undefined>;
type Params = { slug: string };
type ItemParams = { slug: string; id: string };

/** The form's fields without the CSRF token, empty strings dropped (an empty field is "not given"). */
export function fieldsOf(body: Form | undefined, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = body?.[n];
    if (typeof v === 'string' && v.trim() !== '') out[n] = v;
  }
  return out;
}

/**
 * Runs a change; a refusal the person can fix (a `FormRefusal`, or the service's 400/409/422) is
 * shown on the page, each sentence at its field of `labels`, instead of an error page.
 */
export async function orShow(work: () => Promise<unknown>, show: (errors: FormErrors, status: number) => unknown, done: () => unknown, labels: Record<string, string> = {}) {
  try {
    await work();
  } catch (err) {
    if (err instanceof FormRefusal) return show(err.errors, 422);
    if (err instanceof ApiError && [400, 409, 422].includes(err.status)) return show(errorsOfRefusal(err, labels), err.status);
    throw err;
  }
  return done();
}

/** A tag form's colour, when one was chosen (the API's `color`; absent: the API picks one). */
function colorOf(body: Form | undefined): { color?: string } {
  const color = body?.color?.trim();
  return color ? { color } : {};
}

export const frameOf = (page: WorkspacePage): WorkspaceFrame => ({ ...page.frame, workspace: page.frame.workspace! });

export function settingsRoutes(kit: Kit, services: PageServices, workspaces: WorkspaceService, config: Config): FastifyPluginAsync {
  const back = (page: WorkspacePage, rest: string) => workspacePath(page.workspace.slug, `/settings/${rest}`);
  const parse = <T extends z.ZodTypeAny>(schema: T, value: unknown, labels: Record<string, string> = {}): z.infer<T> => formInput(schema, value, labels);
  const GENERAL = { name: 'the workspace name', slug: 'the slug' };
  const DOMAIN = { slug: 'the domain' };
  const NAMED = { name: 'the name' };

  return async (app) => {
    // General: name and slug.
    app.get<{ Params: Params }>('/dashboard/w/:slug/settings/general', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      return sendPage(reply, <GeneralPage frame={frameOf(page)} />);
    });
    app.post<{ Params: Params; Body: Form }>('/dashboard/w/:slug/settings/general', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      const fields = fieldsOf(request.body, ['name', 'slug']);
      let slug = page.workspace.slug;
      return orShow(
        async () => {
          const updated = await workspaces.update(apiCallerOf(page), page.workspace.id, parse(UpdateWorkspaceBody, fields, GENERAL), page.who);
          slug = updated.slug;
        },
        (errors, status) => sendPage(reply, <GeneralPage frame={frameOf(page)} errors={errors} values={fields} />, status),
        () => redirect(reply, workspacePath(slug, '/settings/general')),
        GENERAL,
      );
    });

    // Domains.
    const dnsTarget = config.domainDnsTarget ?? new URL(config.baseUrl).hostname;
    async function showDomains(reply: FastifyReply, page: WorkspacePage, extra: { errors?: FormErrors; notice?: string; errorsOf?: string; values?: Record<string, string> } = {}, status = 200) {
      const domains = await services.domains.list(page.workspace.id, ListDomainsQuery.parse({}));
      return sendPage(reply, <DomainsPage frame={frameOf(page)} domains={domains} dnsTarget={dnsTarget} {...extra} />, status);
    }
    app.get<{ Params: Params }>('/dashboard/w/:slug/settings/domains', { schema: HIDDEN }, async (request, reply) =>
      showDomains(reply, await kit.workspacePage(request, request.params.slug)),
    );
    app.post<{ Params: Params; Body: Form }>('/dashboard/w/:slug/settings/domains', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      return orShow(
        async () => {
          // The API makes a workspace's first domain its primary (the default of new links); here
          // that happens only when the owner ticks "Use it for new links".
          const created = await services.domains.create(page.workspace, parse(CreateDomainBody, fieldsOf(request.body, ['slug']), DOMAIN), {}, page.who);
          const makeDefault = request.body?.makeDefault === 'on';
          if (created.primary !== makeDefault) await services.domains.update(page.workspace.id, created.slug, parse(UpdateDomainBody, { primary: makeDefault }));
        },
        (errors, status) => showDomains(reply, page, { errors, values: fieldsOf(request.body, ['slug']) }, status),
        () => redirect(reply, back(page, 'domains')),
        DOMAIN,
      );
    });
    app.post<{ Params: ItemParams; Body: Form }>('/dashboard/w/:slug/settings/domains/:id', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      // An empty field clears the not-found URL (null), as the API's PATCH with null does.
      const notFoundUrl = request.body?.notFoundUrl?.trim() ? request.body.notFoundUrl.trim() : null;
      return orShow(
        () => services.domains.update(page.workspace.id, request.params.id, parse(UpdateDomainBody, { notFoundUrl }, { notFoundUrl: 'the not-found URL' }), page.who),
        // The sentence goes to the form of this domain (errorsOf), with what was typed.
        (errors, status) => showDomains(reply, page, { errors: { notFoundUrl: errors.notFoundUrl ?? errors.form ?? '' }, errorsOf: request.params.id, values: { notFoundUrl: notFoundUrl ?? '' } }, status),
        () => redirect(reply, back(page, 'domains')),
        { notFoundUrl: 'the not-found URL' },
      );
    });
    app.post<{ Params: ItemParams }>('/dashboard/w/:slug/settings/domains/:id/check', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      const domain = await services.domains.get(page.workspace.id, request.params.id); // 404 for another workspace's
      const verdict = await services.domains.verifyDomain(domain.slug, { force: true }, page.who);
      return showDomains(reply, page, { notice: `${domain.slug}: ${verdict.verified ? 'verified' : 'not verified'}. ${verdict.reason}` });
    });

    // Tags and folders: the same three actions each.
    for (const kind of ['tags', 'folders'] as const) {
      const action = kind === 'tags' ? 'tags.write' : 'folders.write';
      async function show(reply: FastifyReply, page: WorkspacePage, form: { errors?: FormErrors; errorsOf?: string; values?: Record<string, string> } = {}, status = 200) {
        const items =
          kind === 'tags'
            ? await services.tags.list(page.workspace.id, ListTagsQuery.parse({}))
            : await services.folders.list(page.workspace.id, ListFoldersQuery.parse({}));
        return sendPage(reply, <NamedItemsPage frame={frameOf(page)} kind={kind} items={items} {...form} />, status);
      }
      app.get<{ Params: Params }>(`/dashboard/w/:slug/settings/${kind}`, { schema: HIDDEN }, async (request, reply) =>
        show(reply, await kit.workspacePage(request, request.params.slug)),
      );
      app.post<{ Params: Params; Body: Form }>(`/dashboard/w/:slug/settings/${kind}`, { schema: HIDDEN }, async (request, reply) => {
        const page = await kit.workspacePage(request, request.params.slug, action);
        const fields = fieldsOf(request.body, ['name']);
        return orShow(
          () =>
            kind === 'tags'
              ? services.tags.create(page.workspace, parse(CreateTagBody, { ...fields, ...colorOf(request.body) }, NAMED), page.who)
              : services.folders.create(page.workspace, parse(CreateFolderBody, fields, NAMED), page.who),
          (errors, status) => show(reply, page, { errors, values: { name: request.body?.name ?? '', color: request.body?.color ?? '' } }, status),
          () => redirect(reply, back(page, kind)),
          NAMED,
        );
      });
      app.post<{ Params: ItemParams; Body: Form }>(`/dashboard/w/:slug/settings/${kind}/:id/rename`, { schema: HIDDEN }, async (request, reply) => {
        const page = await kit.workspacePage(request, request.params.slug, action);
        const fields = fieldsOf(request.body, ['name']);
        return orShow(
          () =>
            kind === 'tags'
              ? services.tags.update(page.workspace.id, request.params.id, parse(UpdateTagBody, { ...fields, ...colorOf(request.body) }, NAMED), page.who)
              : services.folders.update(page.workspace.id, request.params.id, parse(UpdateFolderBody, fields, NAMED), page.who),
          (errors, status) => show(reply, page, { errors, errorsOf: request.params.id, values: { name: request.body?.name ?? '' } }, status),
          () => redirect(reply, back(page, kind)),
          NAMED,
        );
      });
      app.post<{ Params: ItemParams }>(`/dashboard/w/:slug/settings/${kind}/:id/delete`, { schema: HIDDEN }, async (request, reply) => {
        const page = await kit.workspacePage(request, request.params.slug, action);
        if (kind === 'tags') await services.tags.delete(page.workspace.id, request.params.id, page.who);
        else await services.folders.delete(page.workspace.id, request.params.id, page.who);
        return redirect(reply, back(page, kind));
      });
    }
  };
}

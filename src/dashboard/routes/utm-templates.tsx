/**
 * Settings → UTM templates: `GET|POST /dashboard/w/:slug/settings/utm` (list, save one) and
 * `POST …/settings/utm/:id/delete`. Every role reads; writing needs `links.write` (owners and
 * members), checked on the server before the service runs. The service keeps each workspace's
 * templates apart (another workspace's id is a 404).
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ApiError } from '../../http/errors.js';
import type { FormErrors } from '../form-errors.js';
import { UTM_COLUMNS } from '../../links/urls.js';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { workspacePath } from '../layout.js';
import type { PageServices } from '../services.js';
import { UtmTemplatesPage, UTM_LABELS } from '../pages/utm-templates.js';
import { frameOf } from './settings.js';

type Form = Record<string, string | undefined>;
const FIELDS = ['name', ...UTM_COLUMNS] as const;

/** The service's `utm_source: …` refusal, in the form's words. */
function messageOf(err: ApiError): string {
  const field = err.field as (typeof UTM_COLUMNS)[number] | 'name' | 'utm' | undefined;
  if (field === 'name') return err.status === 409 ? err.message : 'The name is required and can be at most 100 characters.';
  if (field === 'utm') return 'Fill at least one UTM value.';
  if (field && field in UTM_LABELS) return `${UTM_LABELS[field as (typeof UTM_COLUMNS)[number]]} can be at most 190 characters.`;
  return err.message;
}

export function utmTemplateRoutes(kit: Kit, services: PageServices): FastifyPluginAsync {
  const back = (page: WorkspacePage) => workspacePath(page.workspace.slug, '/settings/utm');
  async function show(reply: FastifyReply, page: WorkspacePage, extra: { errors?: FormErrors; values?: Record<string, string> } = {}, status = 200) {
    const templates = await services.utmTemplates.list(page.workspace.id);
    return sendPage(reply, <UtmTemplatesPage frame={frameOf(page)} templates={templates} {...extra} />, status);
  }
  return async (app) => {
    app.get<{ Params: { slug: string } }>('/dashboard/w/:slug/settings/utm', { schema: HIDDEN }, async (request, reply) =>
      show(reply, await kit.workspacePage(request, request.params.slug)),
    );
    app.post<{ Params: { slug: string }; Body: Form }>('/dashboard/w/:slug/settings/utm', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const values: Record<string, string> = {};
      for (const f of FIELDS) if (typeof request.body?.[f] === 'string') values[f] = request.body[f]!;
      try {
        await services.utmTemplates.create(page.workspace.id, values, page.userId, page.who);
      } catch (err) {
        if (err instanceof ApiError && [403, 409, 422].includes(err.status)) {
          // At the field it concerns (the name, one UTM value); "fill at least one" concerns them all: the top.
          const at = err.field === 'name' || (err.field && err.field in UTM_LABELS) ? err.field : 'form';
          return show(reply, page, { errors: { [at]: messageOf(err) }, values }, err.status);
        }
        throw err;
      }
      return redirect(reply, back(page));
    });
    app.post<{ Params: { slug: string; id: string } }>('/dashboard/w/:slug/settings/utm/:id/delete', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      await services.utmTemplates.delete(page.workspace.id, request.params.id, page.who);
      return redirect(reply, back(page));
    });
  };
}

/**
 * Settings → Bio pages: `GET /dashboard/w/:slug/settings/bio[?page=id]` (the list, the editor and
 * a preview), `POST …/settings/bio` (create), `POST …/settings/bio/:id` (save) and
 * `POST …/settings/bio/:id/delete`. Every role reads; writing needs `links.write` (owners and
 * members). The service keeps each workspace's pages and links apart.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { BioService } from '../../bio/service.js';
import type { BioField } from '../../bio/schema.js';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { workspacePath } from '../layout.js';
import { BioPagesPage } from '../pages/bio.js';
import { frameOf } from './settings.js';

type Form = Record<string, string | string[] | undefined>;

/** The form's link places (`pos_<id>` = 1, 2, …) as an ordered list of ids. */
export function orderedLinkIds(form: Form): string[] {
  const places: [string, number][] = [];
  for (const [name, value] of Object.entries(form)) {
    if (!name.startsWith('pos_') || typeof value !== 'string' || value.trim() === '') continue;
    const n = Number(value);
    places.push([name.slice(4), Number.isFinite(n) ? n : Number.MAX_SAFE_INTEGER]);
  }
  return places.sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0])).map(([id]) => id);
}

export function bioRoutes(kit: Kit, bio: BioService): FastifyPluginAsync {
  const back = (page: WorkspacePage, id?: string) => workspacePath(page.workspace.slug, '/settings/bio') + (id ? `?page=${encodeURIComponent(id)}` : '');

  async function show(reply: FastifyReply, page: WorkspacePage, editingId: string | null, extra: { values?: Record<string, string>; errors?: Partial<Record<BioField, string>> } = {}, status = 200) {
    const id = page.workspace.id;
    const [pages, choices, links] = await Promise.all([bio.list(id), bio.domainChoices(id), bio.linkChoices(id)]);
    const editing = editingId ? await bio.get(id, editingId) : null;
    const domains = [...choices.own, ...(choices.own.includes(choices.shared) ? [] : [choices.shared])];
    return sendPage(reply, <BioPagesPage frame={frameOf(page)} pages={pages} editing={editing} domains={domains} links={links} {...extra} />, status);
  }

  async function save(request: { body?: Form }, reply: FastifyReply, page: WorkspacePage, id: string | null) {
    const form = request.body ?? {};
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(form)) if (typeof v === 'string') values[k] = v;
    const result = await bio.save(page.workspace.id, id, { ...values, links: orderedLinkIds(form) }, page.who);
    if (!result.ok) return show(reply, page, id, { values, errors: result.errors }, 422);
    return redirect(reply, back(page, result.page.id));
  }

  return async (app) => {
    app.get<{ Params: { slug: string }; Querystring: { page?: string } }>('/dashboard/w/:slug/settings/bio', { schema: HIDDEN }, async (request, reply) =>
      show(reply, await kit.workspacePage(request, request.params.slug), typeof request.query.page === 'string' && request.query.page ? request.query.page : null),
    );
    app.post<{ Params: { slug: string }; Body: Form }>('/dashboard/w/:slug/settings/bio', { schema: HIDDEN }, async (request, reply) =>
      save(request, reply, await kit.workspacePage(request, request.params.slug, 'links.write'), null),
    );
    app.post<{ Params: { slug: string; id: string }; Body: Form }>('/dashboard/w/:slug/settings/bio/:id', { schema: HIDDEN }, async (request, reply) =>
      save(request, reply, await kit.workspacePage(request, request.params.slug, 'links.write'), request.params.id),
    );
    app.post<{ Params: { slug: string; id: string } }>('/dashboard/w/:slug/settings/bio/:id/delete', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      await bio.delete(page.workspace.id, request.params.id, page.who);
      return redirect(reply, back(page));
    });
  };
}

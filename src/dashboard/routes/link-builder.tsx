/**
 * The link builder: `GET|POST /dashboard/w/:slug/links/new`, `GET|POST …/links/:id/edit`, and the
 * key availability fragment `GET …/links/key-check?domain=&key=[&linkId=]` that htmx asks as the
 * key is typed. Every write goes through the links service with the API's schemas (link-form.ts),
 * so the rules are the API's; a refusal re-renders the form, as typed, with the message at its field.
 * A created or saved link lands on its edit page with `?saved=created|saved`: a notice with the
 * short link and *Copy*.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiError, errorBody } from '../../http/errors.js';
import type { PreviewFetchLimit } from '../preview-limit.js';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { workspacePath } from '../layout.js';
import { LinkBuilderPage, PreviewFields } from '../pages/link-builder.js';
import { checkWebUrl, locationUrl } from '../../web-url.js';
import type { CardResult } from '../../outbound/page-card.js';
import { publicStatsPath } from '../pages/public-stats.js';
import { addError, errorsOfApiError, formToBody, linkToForm, type FieldErrors, type FormValues } from '../link-form.js';
import { callerOf, type LinkChoices } from './link-choices.js';
import type { LinkService } from '../../links/service.js';
import type { LinkResponse } from '../../links/schema.js';
import { parseInput } from '../../users/schema.js';
import { can } from '../../users/roles.js';
import { UTM_COLUMNS } from '../../links/urls.js';
import type { UtmTemplateService } from '../../utm-templates/service.js';

type Form = Record<string, string | undefined>;

/** After a create or a save, the edit page says so (with the short link and *Copy*). */
const EditQuery = z.object({ saved: z.enum(['created', 'saved']).optional(), utmTemplate: z.string().max(100).optional() });
/** The builder's picker without JavaScript: `?utmTemplate=<id>` opens the form with its values. */
const NewQuery = z.object({ utmTemplate: z.string().max(100).optional() });
type SavedNotice = 'created' | 'saved';

const KeyCheckQuery = z.object({
  domain: z.string().max(190).optional(),
  key: z.string().max(190).optional().default(''),
  linkId: z.string().max(100).optional(),
});

/** The submitted fields without the CSRF token and other non-link fields. */
function valuesOf(body: Form | undefined): FormValues {
  const out: FormValues = {};
  for (const [k, v] of Object.entries(body ?? {})) if (k !== '_csrf' && k !== 'linkId' && typeof v === 'string') out[k] = v;
  return out;
}

/** A client that asks for JSON and not HTML (not htmx, which asks for HTML fragments). */
function wantsJson(headers: Record<string, string | string[] | undefined>): boolean {
  const accept = String(headers.accept ?? '');
  return !headers['hx-request'] && /application\/json/i.test(accept) && !/text\/html/i.test(accept);
}

/**
 * `baseUrl`: this server's public address (BASE_URL), for the public stats page's address;
 * `templates`: the workspace's UTM templates, offered in the builder's picker.
 */
export function linkBuilderRoutes(
  kit: Kit,
  links: LinkService,
  choices: LinkChoices,
  templates: UtmTemplateService,
  baseUrl: string,
  preview: {
    /** Reads a destination's social card (outbound/page-card.ts, with the webhooks' address rule). */
    fetchCard: (url: string) => Promise<CardResult>;
    /** Fetches per user and per workspace (preview-limit.ts). */
    limit: PreviewFetchLimit;
    /** DOCS_URL, for the error body's `doc_url`. */
    docsUrl: string;
  },
): FastifyPluginAsync {
  const { fetchCard, limit, docsUrl } = preview;
  async function show(
    reply: FastifyReply,
    page: WorkspacePage,
    view: { link?: LinkResponse; values: FormValues; errors?: FieldErrors; loaded?: Awaited<ReturnType<LinkChoices['load']>>; saved?: SavedNotice },
    status = 200,
  ) {
    const frame = { ...page.frame, workspace: page.frame.workspace! };
    const [c, utmTemplates] = await Promise.all([view.loaded ?? choices.load(page.workspace.id), templates.list(page.workspace.id)]);
    return sendPage(reply, <LinkBuilderPage
        frame={frame}
        link={view.link}
        values={view.values}
        errors={view.errors ?? {}}
        saved={view.saved}
        statsUrl={view.link ? `${baseUrl}${publicStatsPath(view.link.domain, view.link.key)}` : undefined}
        utmTemplates={utmTemplates}
        {...c}
      />, status);
  }
  /**
   * A form refused by the schema is not sent to the service, whose checks (the key taken, the
   * domain not the workspace's) would then come only after the next try: ask the key check too,
   * so every problem is printed at once.
   */
  async function withKeyCheck(page: WorkspacePage, values: FormValues, errors: FieldErrors, existing?: LinkResponse): Promise<FieldErrors> {
    const key = (values.key ?? '').trim();
    const domain = (values.domain ?? '').trim() || undefined;
    if (!key || errors.key || errors.domain) return errors;
    if (existing && existing.key.toLowerCase() === key.toLowerCase() && (!domain || existing.domain === domain.toLowerCase())) return errors;
    try {
      await links.checkKey(callerOf(page), { domain, key });
    } catch (err) {
      const found = errorsOfApiError(err);
      for (const [field, message] of Object.entries(found) as [keyof FieldErrors, string][]) addError(errors, field, message);
    }
    return errors;
  }
  /**
   * The picker's choice applied on the server (no JavaScript): the template's values replace the
   * UTM fields, empty ones cleared. Only this workspace's templates: another's id is not found.
   */
  async function applyTemplate(page: WorkspacePage, values: FormValues, id: string | undefined): Promise<{ errors: FieldErrors; status: number }> {
    if (!id) return { errors: {}, status: 200 };
    try {
      const template = await templates.get(page.workspace.id, id);
      for (const c of UTM_COLUMNS) values[c] = template.values[c];
      values.utmTemplate = template.id;
      return { errors: {}, status: 200 };
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 404) throw err;
      return { errors: { utm: 'That UTM template does not exist (it may have been deleted).' }, status: 404 };
    }
  }
  const editPath = (page: WorkspacePage, id: string, saved?: SavedNotice) =>
    workspacePath(page.workspace.slug, `/links/${encodeURIComponent(id)}/edit${saved ? `?saved=${saved}` : ''}`);

  return async (app) => {
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/links/new', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const loaded = await choices.load(page.workspace.id);
      // The workspace's primary domain first (the API's default), conversion tracking as the workspace's default.
      // "Custom link preview" starts ticked: filling the preview fields is then enough.
      const values: FormValues = { domain: loaded.domains[0] ?? '', proxy: 'on', ...(page.workspace.conversion_enabled ? { trackConversion: 'on' } : {}) };
      const applied = await applyTemplate(page, values, parseInput(NewQuery, request.query).utmTemplate);
      return show(reply, page, { values, loaded, errors: applied.errors }, applied.status);
    });

    app.post<{ Params: { slug: string }; Body: Form }>('/dashboard/w/:slug/links/new', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const values = valuesOf(request.body);
      const parsed = formToBody(values, 'create');
      if (!parsed.ok) return show(reply, page, { values, errors: await withKeyCheck(page, values, parsed.errors) }, 422);
      try {
        const link = await links.create(callerOf(page), parsed.input);
        if (values.publicConversions === 'on') await links.setPublicStatsConversions(callerOf(page), link.id, true);
        return redirect(reply, editPath(page, link.id, 'created'));
      } catch (err) {
        return show(reply, page, { values, errors: errorsOfApiError(err) }, (err as ApiError).status);
      }
    });

    app.get<{ Params: { slug: string; id: string }; Querystring: unknown }>('/dashboard/w/:slug/links/:id/edit', { schema: HIDDEN }, async (request, reply) => {
      // A viewer (who may not edit) following an edit address gets the read-only page instead of a refusal.
      const seen = await kit.workspacePage(request, request.params.slug);
      if (!can(seen.role, 'links.write')) return redirect(reply, workspacePath(seen.workspace.slug, `/links/${encodeURIComponent(request.params.id)}`));
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const { saved, utmTemplate } = parseInput(EditQuery, request.query);
      const [link, shared] = await Promise.all([links.get(callerOf(page), request.params.id), links.publicStatsOf(callerOf(page), request.params.id)]);
      const values = linkToForm(link);
      if (shared.conversions) values.publicConversions = 'on';
      const applied = await applyTemplate(page, values, utmTemplate);
      return show(reply, page, { link, values, saved, errors: applied.errors }, applied.status);
    });

    app.post<{ Params: { slug: string; id: string }; Body: Form }>('/dashboard/w/:slug/links/:id/edit', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const existing = await links.get(callerOf(page), request.params.id); // 404 before anything else
      const values = valuesOf(request.body);
      const parsed = formToBody(values, 'edit');
      if (!parsed.ok) return show(reply, page, { link: existing, values, errors: await withKeyCheck(page, values, parsed.errors, existing) }, 422);
      try {
        await links.update(callerOf(page), existing.id, parsed.input);
        await links.setPublicStatsConversions(callerOf(page), existing.id, values.publicConversions === 'on');
        return redirect(reply, editPath(page, existing.id, 'saved'));
      } catch (err) {
        return show(reply, page, { link: existing, values, errors: errorsOfApiError(err) }, (err as ApiError).status);
      }
    });

    // "Fetch from destination": the builder's preview fields (a fragment htmx swaps in), filled
    // from the destination's own card, read on the server with the webhooks' address rule.
    app.post<{ Params: { slug: string }; Body: Form }>('/dashboard/w/:slug/links/preview-fetch', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const values = valuesOf(request.body);
      const fetchUrl = workspacePath(page.workspace.slug, '/links/preview-fetch');
      // htmx swaps the fields in place, a refusal's sentence at the button; a client that asks
      // for JSON alone gets the card, or the spec's error body.
      const json = wantsJson(request.headers);
      const answer = (fetched: { ok: boolean; message: string }, status: number) =>
        sendPage(reply, <PreviewFields values={values} errors={{}} fetchUrl={fetchUrl} fetched={fetched} />, status);
      const refuse = (err: ApiError) => {
        if (err.headers) reply.headers(err.headers);
        return json ? reply.status(err.status).send(errorBody(docsUrl, err.code, err.message)) : answer({ ok: false, message: err.message }, err.status);
      };
      const checked = checkWebUrl((values.url ?? '').trim());
      const target = checked.url === null ? null : locationUrl(checked.url);
      if (!target) return refuse(new ApiError('unprocessable_entity', 'Type the destination URL first (a web address starting with https:// or http://).', { field: 'url' }));
      const limited = await limit.take({ userId: page.userId, workspaceId: page.workspace.id });
      if (limited) return refuse(limited);
      const result = await fetchCard(target);
      if (!result.ok) return refuse(new ApiError('unprocessable_entity', result.reason, { field: 'url' }));
      const { title, description, image } = result.card;
      if (!title && !description && !image) return refuse(new ApiError('unprocessable_entity', 'The destination declares no title, description or image.', { field: 'url' }));
      if (json) return reply.send({ url: result.url, title, description, image, truncated: result.truncated });
      if (title) values.title = title;
      if (description) values.description = description;
      if (image) values.image = image;
      values.proxy = 'on';
      const cut = result.truncated ? ' Only the start of the page was read (it is large).' : '';
      return answer({ ok: true, message: `Filled from ${result.url}.${cut}` }, 200);
    });

    // A fragment for htmx (also readable on its own): whether domain/key is free for a new link.
    app.get<{ Params: { slug: string }; Querystring: unknown }>('/dashboard/w/:slug/links/key-check', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'links.write');
      const q = parseInput(KeyCheckQuery, request.query);
      const fragment = (cls: 'ok' | 'error' | 'hint', text: string) => sendPage(reply, <span class={cls} safe>{text}</span>);
      if (!q.key.trim()) return fragment('hint', 'A random key will be chosen.');
      try {
        const { domain, key } = await links.checkKey(callerOf(page), { domain: q.domain, key: q.key });
        return fragment('ok', `${domain}/${key} is available.`);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        // Editing: the link's own key is "taken" by the link itself.
        if (err.status === 409 && q.linkId) {
          const own = await links.get(callerOf(page), q.linkId).catch(() => undefined);
          if (own && own.key.toLowerCase() === q.key.trim().toLowerCase() && (!q.domain || own.domain === q.domain.toLowerCase())) {
            return fragment('hint', 'This is the link’s current key.');
          }
        }
        return fragment('error', err.message);
      }
    });
  };
}

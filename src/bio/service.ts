/**
 * Bio page rules: the input checks (schema.ts), the domain one of the workspace's (or the
 * service's shared short domain, where only `/@handle` is offered, never the root), links only of
 * this workspace, handles unique per domain, one root page a domain. Refusals come back as
 * field errors for the editor. Who may write is the caller's check (the dashboard's `links.write`).
 *
 * @example
 * const r = await bio.save(workspaceId, null, { domain: 'go.example', handle: 'ada', title: 'Ada' });
 * if (!r.ok) r.errors.handle;
 */
import { record, type Who } from '../audit/record.js';
import type { Dialect } from '../db/dialect.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { toBioPage, validateBioInput, type BioField, type BioPage, type BioPageRow } from './schema.js';
import type { BioStore } from './store.js';

export type BioSaveResult = { ok: true; page: BioPage } | { ok: false; errors: Partial<Record<BioField, string>> };

export function createBioService(store: BioStore, dialect: Dialect, options: { sharedDomain: string; now?: () => number; onChange?: () => void }) {
  const now = options.now ?? Date.now;
  const shared = options.sharedDomain.toLowerCase();

  return {
    async list(workspaceId: string): Promise<BioPage[]> {
      const rows = await store.list(workspaceId);
      return Promise.all(rows.map(async (r) => toBioPage(r, await store.linkIdsOf(r.id))));
    },

    async get(workspaceId: string, id: string): Promise<BioPage> {
      const row = await store.findById(workspaceId, id);
      if (!row) throw new ApiError('not_found', 'Bio page not found.');
      return toBioPage(row, await store.linkIdsOf(row.id));
    },

    /** The links the editor offers (the newest 200). */
    linkChoices: (workspaceId: string) => store.workspaceLinks(workspaceId, 200),

    /** The domains a page of this workspace may use: its own, then the shared one. */
    async domainChoices(workspaceId: string): Promise<{ own: string[]; shared: string }> {
      return { own: await store.domainsOf(workspaceId), shared };
    },

    /** Creates (`id` null) or updates a page. Another workspace's page id is a 404. */
    async save(workspaceId: string, id: string | null, body: Record<string, unknown>, who?: Who): Promise<BioSaveResult> {
      const existing = id === null ? undefined : await store.findById(workspaceId, id);
      if (id !== null && !existing) throw new ApiError('not_found', 'Bio page not found.');
      const checked = validateBioInput(body);
      if (!checked.ok) return checked;
      const input = checked.value;
      const own = await store.domainsOf(workspaceId);
      if (input.domain !== shared && !own.includes(input.domain)) return { ok: false, errors: { domain: 'Choose one of this workspace’s domains.' } };
      if (input.atRoot && input.domain === shared) return { ok: false, errors: { domain: 'Only a domain of this workspace can show the page at its root.' } };
      const owned = await store.ownedLinkIds(workspaceId, input.linkIds);
      if (input.linkIds.some((l) => !owned.has(l))) return { ok: false, errors: { links: 'Choose links of this workspace only.' } };
      const t = now();
      const row: BioPageRow = {
        id: existing?.id ?? newId('bio', t),
        workspace_id: workspaceId,
        domain: input.domain,
        handle: input.handle,
        handle_key: input.handle.toLowerCase(),
        root_domain: input.atRoot ? input.domain : null,
        title: input.title,
        bio: input.bio,
        avatar: input.avatar,
        theme: input.theme,
        socials: JSON.stringify(input.socials),
        views: existing ? Number(existing.views) : 0,
        created_at: existing?.created_at ?? t,
        updated_at: t,
      };
      try {
        const action = existing === undefined ? 'bio_page.create' : 'bio_page.update';
        await store.save(row, input.linkIds, existing === undefined, (trx) => record(trx, who, { workspaceId, action, targetIds: row.id, changes: { domain: row.domain, handle: row.handle } }));
      } catch (err) {
        if (!dialect.isUniqueViolation(err)) throw err;
        const taken = await store.findByHandle([input.domain], row.handle_key);
        if (taken && taken.id !== row.id) return { ok: false, errors: { handle: `The handle @${input.handle} is taken on ${input.domain}.` } };
        return { ok: false, errors: { domain: `Another page is already the root of ${input.domain}.` } };
      }
      options.onChange?.();
      return { ok: true, page: toBioPage(row, input.linkIds) };
    },

    async delete(workspaceId: string, id: string, who?: Who): Promise<void> {
      if (!(await store.delete(workspaceId, id, (trx) => record(trx, who, { workspaceId, action: 'bio_page.delete', targetIds: id })))) throw new ApiError('not_found', 'Bio page not found.');
      options.onChange?.();
    },
  };
}

export type BioService = ReturnType<typeof createBioService>;

/**
 * The links API's operations: create, read, update, upsert, delete, their bulk forms, lists and
 * counts. Rules live in `prepare.ts`; SQL in `store.ts`. Every write announces the affected
 * (domain, key) pairs on the change bus, old and new, so the redirect server's cache drops them.
 */
import { fieldsOf, record } from '../audit/record.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { ChangeBus } from '../db/change-bus.js';
import type { Dialect } from '../db/dialect.js';
import { ApiError, formatZodError } from '../http/errors.js';
import { planLabel } from '../workspaces/plans.js';
import { toLinkResponse, type LinkResponse } from './response.js';
import { CreateLinkBody, LIMITS, type BulkUpdateData, type CountLinksQuery, type CreateLinkInput, type ListLinksQuery, type UpdateLinkInput } from './schema.js';
import { createPreparer, newBatch, prepareFields, tagRequestOf, type Caller } from './prepare.js';
import { linkFilters, linkPage, type LinkView } from './query.js';
import { lookupKey, normaliseDomain, ROOT_KEY } from './keys.js';
import { loadLinkExtras, SEARCH_INDEX_THRESHOLD, TAG_PROBE_THRESHOLD, type InTransaction, type LinkFilters, type LinkRow, type LinkStore, type LinkWrite } from './store.js';
import type { Outbox } from '../outbox/outbox.js';
import { linkEvents } from './link-events.js';
import { createLinkImporter } from './import-batch.js';

export type { Caller } from './prepare.js';

/** An element of a bulk response that failed: the input, why, and the error code. */
export interface LinkError {
  link: unknown;
  error: string;
  code: string;
}

export interface LinkServiceDeps {
  db: Kysely<Database>;
  dialect: Dialect;
  store: LinkStore;
  bus: ChangeBus;
  now: () => number;
  config: { baseUrl: string; shortDomain: string; shortLinkProtocol: 'http' | 'https' };
  /** Domain events of single writes (link.created/updated/deleted); bulk writes announce none. */
  outbox?: Outbox;
}

/** The published wording of the link quota (behaviour.md §8); a limit of 1 takes the singular. */
export function linksLimitMessage(limit: number, plan: string): string {
  return `You've reached your monthly limit of ${limit} ${limit === 1 ? 'link' : 'links'} on the ${planLabel(plan)} plan. Please upgrade for higher limits.`;
}

/** `also` followed by the audit entry, inside the write's transaction. */
function noting<A extends unknown[]>(note: InTransaction<A>, also?: InTransaction<A>): InTransaction<A> {
  return async (trx, ...args) => {
    await also?.(trx, ...args);
    await note(trx, ...args);
  };
}

export function createLinkService(deps: LinkServiceDeps) {
  const { store, bus, dialect } = deps;
  const events = linkEvents(deps.outbox, deps.config, deps.now);
  const preparer = createPreparer({ store, shortDomain: deps.config.shortDomain, shortLinkProtocol: deps.config.shortLinkProtocol, now: deps.now });
  const importer = createLinkImporter({ store, dialect, bus, shortDomain: deps.config.shortDomain, shortLinkProtocol: deps.config.shortLinkProtocol, now: deps.now, limitMessage: linksLimitMessage });

  async function respond(workspaceId: string, rows: LinkRow[]): Promise<LinkResponse[]> {
    const extras = await loadLinkExtras(deps.db, workspaceId, rows.map((r) => r.id));
    return rows.map((r) => toLinkResponse(r, extras.tags(r.id), deps.config, extras.webhookIds(r.id)));
  }
  const respondOne = async (workspaceId: string, row: LinkRow) => (await respond(workspaceId, [row]))[0]!;

  /** List/count filters with tag names resolved and the tag filter's plan chosen by the tag's size. */
  async function filtersFor(caller: Caller, q: ListLinksQuery | CountLinksQuery, view: LinkView = {}): Promise<LinkFilters> {
    const { tagNameKeys, ...filters } = linkFilters(q, view);
    if (tagNameKeys) filters.tagIds = await store.tagIdsByNameKeys(caller.workspaceId, tagNameKeys);
    if (filters.tagIds?.length) {
      const tagged = await store.countTagged(caller.workspaceId, filters.tagIds, TAG_PROBE_THRESHOLD);
      filters.tagStrategy = tagged >= TAG_PROBE_THRESHOLD ? 'probe' : 'list';
    }
    if (filters.search) {
      const candidates = await store.countSearchCandidates(filters.search, SEARCH_INDEX_THRESHOLD);
      filters.searchStrategy = candidates !== null && candidates < SEARCH_INDEX_THRESHOLD ? 'index' : 'scan';
    }
    return filters;
  }

  function announce(...links: { domain: string; key: string }[]): void {
    for (const l of links) bus.publish({ type: 'link', domain: l.domain, key: l.key });
  }

  function assertQuotaLeft(caller: Caller, n: number): void {
    const ws = caller.workspace;
    if (Number(ws.links_usage) + n > Number(ws.links_limit)) throw new ApiError('forbidden', linksLimitMessage(Number(ws.links_limit), ws.plan));
  }

  /** Inserts prepared links; a lost race for a key or external id becomes 409, a full quota 403. `action`: the audit entry's. */
  async function insert(caller: Caller, writes: LinkWrite[], action: 'link.create' | 'links.bulk_create', also?: InTransaction): Promise<void> {
    let result: 'ok' | 'over_limit';
    const note: InTransaction = (trx) =>
      action === 'link.create'
        ? record(trx, caller.who, { workspaceId: caller.workspaceId, action, targetIds: writes[0]!.row.id, changes: { url: writes[0]!.row.url, shortLink: writes[0]!.row.short_link } })
        : record(trx, caller.who, { workspaceId: caller.workspaceId, action, targetIds: writes.map((w) => w.row.id), changes: { count: writes.length } });
    try {
      result = await store.insertLinks(caller.workspaceId, writes, noting(note, also));
    } catch (err) {
      if (dialect.isUniqueViolation(err)) throw new ApiError('conflict', 'Duplicate key: This short link already exists (or the externalId is taken).', { field: 'key' });
      throw err;
    }
    if (result === 'over_limit') throw new ApiError('forbidden', linksLimitMessage(Number(caller.workspace.links_limit), caller.workspace.plan));
    announce(...writes.map((w) => ({ domain: w.row.domain, key: w.row.key })));
  }

  /** A link of the caller's workspace by id or `ext_<externalId>`; another workspace's is 404 too. */
  async function findOwned(caller: Caller, linkId: string): Promise<LinkRow> {
    const row = linkId.startsWith('ext_')
      ? ((await store.findByExternalId(caller.workspaceId, linkId.slice(4))) ?? (await store.findById(caller.workspaceId, linkId)))
      : await store.findById(caller.workspaceId, linkId);
    if (!row) throw new ApiError('not_found', 'Link not found.');
    return row;
  }

  async function update(caller: Caller, existing: LinkRow, input: UpdateLinkInput): Promise<LinkResponse> {
    const { patch, tagIds, webhookIds } = await preparer.prepareUpdate(caller, existing, input);
    const row = { ...existing, ...patch } as LinkRow;
    try {
      const note: InTransaction = (trx) => record(trx, caller.who, { workspaceId: caller.workspaceId, action: 'link.update', targetIds: existing.id, changes: { fields: fieldsOf(input) } });
      await store.updateLinks(caller.workspaceId, [{ id: existing.id, patch, tagIds, webhookIds }], noting(note, events.updated(caller.workspaceId, row)));
    } catch (err) {
      if (dialect.isUniqueViolation(err)) throw new ApiError('conflict', 'Duplicate key: This short link already exists (or the externalId is taken).', { field: 'key' });
      throw err;
    }
    events.nudge();
    announce(existing, ...(row.domain !== existing.domain || row.key !== existing.key ? [row] : []));
    return respondOne(caller.workspaceId, row);
  }

  /** `announce: false`: upsert's create, which announces nothing (the published rule, like bulk writes). */
  async function create(caller: Caller, input: CreateLinkInput, announce = true): Promise<LinkResponse> {
    assertQuotaLeft(caller, 1);
    const write = await preparer.prepareNew(caller, input);
    await insert(caller, [write], 'link.create', announce ? events.created(caller.workspaceId, write.row) : undefined);
    if (announce) events.nudge();
    return respondOne(caller.workspaceId, write.row);
  }

  return {
    create: (caller: Caller, input: CreateLinkInput) => create(caller, input),

    /** Imports (CSV, another service's API): a batch judged by the rules of `create` without writing, idempotently (import-batch.ts). */
    judgeImport: importer.judgeBatch,
    /** Imports: writes the rows `judgeImport` accepted, once the tags and domains they need exist. */
    insertImport: importer.insertBatch,

    async get(caller: Caller, linkId: string): Promise<LinkResponse> {
      return respondOne(caller.workspaceId, await findOwned(caller, linkId));
    },

    /** GET /links/info: by domain + key (no key = the root link), link id, or `ext_` external id. */
    async info(caller: Caller, q: { domain?: string; key?: string; linkId?: string; externalId?: string }): Promise<LinkResponse> {
      let row: LinkRow | undefined;
      if (q.linkId) row = await store.findById(caller.workspaceId, q.linkId);
      else if (q.externalId) {
        const prefixed = q.externalId.startsWith('ext_');
        row = await store.findByExternalId(caller.workspaceId, prefixed ? q.externalId.slice(4) : q.externalId);
        if (!row && !prefixed) throw new ApiError('bad_request', 'Invalid externalId. Did you forget to prefix it with `ext_`?');
      } else if (q.domain) {
        const domain = normaliseDomain(q.domain);
        if (!domain) throw new ApiError('unprocessable_entity', 'Invalid domain format');
        const found = await store.findByDomainKey(domain, lookupKey(q.key ?? ROOT_KEY));
        // The lookup by (domain, key) spans workspaces; another workspace's link is answered as missing.
        row = found?.workspace_id === caller.workspaceId ? found : undefined;
      } else {
        throw new ApiError('bad_request', 'You must provide a domain and a key or a linkId or an externalId to retrieve a link.');
      }
      if (!row) throw new ApiError('not_found', 'Link not found.');
      return respondOne(caller.workspaceId, row);
    },

    async update(caller: Caller, linkId: string, input: UpdateLinkInput): Promise<LinkResponse> {
      return update(caller, await findOwned(caller, linkId), input);
    },

    /**
     * PUT /links/upsert: updates the workspace's (oldest) link with the same final destination URL,
     * or creates one (behaviour.md §2.1). Unlike the published API the creation counts against the
     * link quota, so upsert is no way around it.
     */
    async upsert(caller: Caller, input: CreateLinkInput): Promise<LinkResponse> {
      const finalUrl = prepareFields(input, '').url ?? input.url;
      const existing = finalUrl ? await store.findByUrl(caller.workspaceId, finalUrl) : undefined;
      if (!existing) return create(caller, input, false);
      const { keyLength: _l, prefix: _p, ...rest } = input;
      return update(caller, existing, rest);
    },

    async delete(caller: Caller, linkId: string): Promise<{ id: string }> {
      const row = await findOwned(caller, linkId);
      if (row.key === ROOT_KEY) throw new ApiError('forbidden', "You can't delete a custom domain link. You can delete the domain instead.");
      const note: InTransaction<[{ id: string }[]]> = (trx) => record(trx, caller.who, { workspaceId: caller.workspaceId, action: 'link.delete', targetIds: row.id, changes: { shortLink: row.short_link } });
      announce(...(await store.deleteLinks(caller.workspaceId, [row.id], noting(note, events.deleted(caller.workspaceId, row)))));
      events.nudge();
      return { id: row.id };
    },

    /**
     * POST /links/bulk: each element is validated and checked on its own; the valid ones are
     * inserted in one transaction (all or none), and the response lists them in input order
     * followed by `{link, error, code}` for each element that failed (behaviour.md §2.1).
     */
    async bulkCreate(caller: Caller, items: unknown[]): Promise<(LinkResponse | LinkError)[]> {
      if (items.length === 0) throw new ApiError('bad_request', 'No links created – you must provide at least one link.');
      if (items.length > LIMITS.bulk) throw new ApiError('bad_request', `You can only create up to ${LIMITS.bulk} links at a time.`);
      assertQuotaLeft(caller, 1);
      const batch = newBatch();
      const writes: LinkWrite[] = [];
      const errors: LinkError[] = [];
      for (const item of items) {
        const parsed = CreateLinkBody.safeParse(item);
        if (!parsed.success) {
          errors.push({ link: item, error: formatZodError(parsed.error), code: 'unprocessable_entity' });
          continue;
        }
        try {
          writes.push(await preparer.prepareNew(caller, parsed.data, batch));
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          errors.push({ link: item, error: err.message, code: err.code });
        }
      }
      await insert(caller, writes, 'links.bulk_create');
      return [...(await respond(caller.workspaceId, writes.map((w) => w.row))), ...errors];
    },

    /**
     * PATCH /links/bulk: applies `data` to the links named by `linkIds` (or else `externalIds`).
     * Links that are missing or fail a rule are reported as `{link, error, code}` after the
     * updated ones; the updates are written in one transaction.
     */
    async bulkUpdate(caller: Caller, body: { linkIds?: string[]; externalIds?: string[]; data: BulkUpdateData }): Promise<(LinkResponse | LinkError)[]> {
      const byId = !!body.linkIds?.length;
      const wanted = [...new Set(byId ? body.linkIds! : (body.externalIds ?? []).map((e) => (e.startsWith('ext_') ? e.slice(4) : e)))];
      if (!wanted.length) return [];
      const rows = byId ? await store.findManyByIds(caller.workspaceId, wanted) : await store.findManyByExternalIds(caller.workspaceId, wanted);
      const found = new Map(rows.map((r) => [byId ? r.id : r.external_id!, r]));
      const errors: LinkError[] = [];
      const tagIds = await preparer.resolveTags(caller, tagRequestOf(body.data));
      await preparer.checkFolder(caller, body.data.folderId);
      const updates: { id: string; patch: Parameters<LinkStore['updateLinks']>[1][number]['patch']; tagIds?: string[]; webhookIds?: string[]; before: LinkRow }[] = [];
      const batch = newBatch();
      for (const id of wanted) {
        const row = found.get(id);
        if (!row) {
          errors.push({ link: byId ? { id } : { externalId: id }, error: 'Link not found.', code: 'not_found' });
          continue;
        }
        try {
          const prepared = await preparer.prepareUpdate(caller, row, body.data, { batch, resolvedTags: tagIds, tagsResolved: true });
          updates.push({ id: row.id, patch: prepared.patch, tagIds: prepared.tagIds, webhookIds: prepared.webhookIds, before: row });
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          errors.push({ link: { id: row.id }, error: err.message, code: err.code });
        }
      }
      const note: InTransaction = (trx) => record(trx, caller.who, { workspaceId: caller.workspaceId, action: 'links.bulk_update', targetIds: updates.map((u) => u.id), changes: { count: updates.length, fields: fieldsOf(body.data) } });
      await store.updateLinks(caller.workspaceId, updates, noting(note));
      const after = updates.map((u) => ({ ...u.before, ...u.patch }) as LinkRow);
      announce(...updates.map((u) => u.before), ...after);
      return [...(await respond(caller.workspaceId, after)), ...errors];
    },

    /** DELETE /links/bulk: ids or `ext_` external ids; unknown ones and root links are skipped. */
    async bulkDelete(caller: Caller, linkIds: string[] | undefined): Promise<{ deletedCount: number }> {
      if (!linkIds?.length) {
        throw new ApiError(
          'bad_request',
          'Please provide linkIds to delete. You may use `linkId` or `externalId` prefixed with `ext_` as comma separated values.',
        );
      }
      if (linkIds.length > LIMITS.bulk) throw new ApiError('bad_request', `You can only delete up to ${LIMITS.bulk} links at a time.`);
      const external = linkIds.filter((id) => id.startsWith('ext_')).map((id) => id.slice(4));
      const byExternal = await store.findManyByExternalIds(caller.workspaceId, external);
      const ids = [...new Set([...linkIds.filter((id) => !id.startsWith('ext_')), ...byExternal.map((r) => r.id)])];
      const deleted = await store.deleteLinks(caller.workspaceId, ids, async (trx, rows) => {
        if (rows.length) await record(trx, caller.who, { workspaceId: caller.workspaceId, action: 'links.bulk_delete', targetIds: rows.map((r) => r.id), changes: { count: rows.length } });
      });
      announce(...deleted);
      return { deletedCount: deleted.length };
    },

    /** `GET /links`; `view` is the dashboard's (every folder by default). */
    async list(caller: Caller, q: ListLinksQuery, view: LinkView = {}): Promise<LinkResponse[]> {
      const page = linkPage(q);
      let after: { createdAt: number; id: string } | undefined;
      const cursorId = q.startingAfter ?? q.endingBefore;
      if (cursorId) {
        after = await store.cursorOf(caller.workspaceId, cursorId);
        if (!after) throw new ApiError('unprocessable_entity', 'Invalid cursor: the provided ID does not exist.');
      }
      const rows = await store.list(caller.workspaceId, await filtersFor(caller, q, view), { ...page, after });
      // endingBefore walks the order backwards from the cursor; the page is shown in the asked order.
      if (q.endingBefore) rows.reverse();
      return respond(caller.workspaceId, rows);
    },

    /** GET /links/count: a bare number, or `[{<group>: value, _count}]` largest first. */
    async count(caller: Caller, q: CountLinksQuery): Promise<number | Record<string, unknown>[]> {
      const filters = await filtersFor(caller, q);
      if (!q.groupBy) return store.count(caller.workspaceId, filters);
      const rows = await store.countBy(caller.workspaceId, filters, q.groupBy);
      return rows.map((r) => ({ [q.groupBy!]: r.value, _count: r.count }));
    },

    /**
     * Whether `key` is free on `domain` for a new link, by the same rules as POST /links (format,
     * reserved keys, the workspace's domains, taken keys): `{domain, key}` normalised, or that ApiError.
     *
     * @example
     * await links.checkKey(caller, { domain: 'go.example.com', key: 'spring' }); // throws 409 if taken
     */
    checkKey(caller: Caller, q: { domain?: string; key: string }): Promise<{ domain: string; key: string }> {
      return preparer.checkKey(caller, q.domain, q.key);
    },

    /**
     * The dashboard's public stats settings of a link: shared (`publicStats`, the API's field) and
     * whether the public page shows leads, sales and revenue (the dashboard's own setting).
     */
    async publicStatsOf(caller: Caller, linkId: string): Promise<{ shared: boolean; conversions: boolean }> {
      const row = await findOwned(caller, linkId);
      return { shared: row.public_stats === 1, conversions: row.public_stats_conversions === 1 };
    },

    async setPublicStatsConversions(caller: Caller, linkId: string, on: boolean): Promise<void> {
      const row = await findOwned(caller, linkId);
      if ((row.public_stats_conversions === 1) === on) return;
      await store.setPublicStatsConversions(caller.workspaceId, row.id, on, (trx) => record(trx, caller.who, { workspaceId: caller.workspaceId, action: 'link.update', targetIds: row.id, changes: { fields: ['publicStatsConversions'] } }));
    },

    /** The link at `domain/key` in any workspace (the redirect lookup; see `store.findByDomainKey`). */
    findByDomainKey(domain: string, key: string): Promise<LinkRow | undefined> {
      return store.findByDomainKey(domain.toLowerCase(), lookupKey(key));
    },
  };
}

export type LinkService = ReturnType<typeof createLinkService>;

/**
 * The rules that turn a validated link body into a row: default and owned domains, given and
 * random keys, reserved and taken keys, external ids, tags, folders, UTM merging and the
 * cross-field rules (behaviour.md §1.2). Create and update share them; bulk operations pass a
 * `Batch` so that two items of one request cannot take the same key or external id.
 */
import type { Who } from '../audit/record.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { buildShortLink } from './response.js';
import { DEFAULT_KEY_LENGTH, ROOT_KEY, lookupKey, normaliseDomain, processKey, randomLinkKey, reservedKeyReason } from './keys.js';
import { URL_PARAM_FIELDS, mergeUtm, utmFromUrl } from './urls.js';
import type { CreateLinkInput, UpdateLinkInput } from './schema.js';
import type { LinkPatch, LinkRow, LinkStore, LinkWrite } from './store.js';

/** Who is writing: the workspace, its row (plan, limits, conversion default) and the creating key. */
export interface Caller {
  workspaceId: string;
  workspace: { plan: string; links_usage: number; links_limit: number; conversion_enabled: number };
  /** Recorded as the link's `userId`: the API key that created it. */
  userId: string | null;
  /** Who acts, for the audit log; absent for writes that record no entry of their own (an import's batches). */
  who?: Who;
}

/** Keys and external ids already taken by earlier items of the same bulk request. */
export interface Batch {
  keys: Set<string>;
  externalIds: Set<string>;
}

export const newBatch = (): Batch => ({ keys: new Set(), externalIds: new Set() });

export interface PrepareDeps {
  store: LinkStore;
  shortDomain: string;
  shortLinkProtocol: 'http' | 'https';
  now: () => number;
}

const DUPLICATE_KEY = 'Duplicate key: This short link already exists.';
const DUPLICATE_EXTERNAL_ID = 'A link with this externalId already exists in this workspace.';
const RANDOM_KEY_ATTEMPTS = 10;

/** Defaults of every column a new link does not set: booleans false, counters 0, the rest null. */
const EMPTY_COLUMNS = {
  url: '',
  archived: 0,
  expires_at: null,
  expired_url: null,
  disabled_at: null,
  password: null,
  track_conversion: 0,
  proxy: 0,
  title: null,
  description: null,
  image: null,
  video: null,
  utm_source: null,
  utm_medium: null,
  utm_campaign: null,
  utm_term: null,
  utm_content: null,
  rewrite: 0,
  do_index: 0,
  ios: null,
  android: null,
  geo: null,
  test_variants: null,
  test_started_at: null,
  test_completed_at: null,
  folder_id: null,
  external_id: null,
  tenant_id: null,
  program_id: null,
  partner_id: null,
  public_stats: 0, public_stats_conversions: 0,
  comments: null,
  clicks: 0,
  leads: 0,
  conversions: 0,
  sales: 0,
  sale_amount: 0,
  last_clicked: null,
} satisfies Omit<LinkRow, 'id' | 'workspace_id' | 'domain' | 'key' | 'key_lower' | 'short_link' | 'user_id' | 'created_at' | 'updated_at'>;

const batchKey = (domain: string, keyLower: string) => `${domain}\u0000${keyLower}`;

/** Fields that `prepareFields` reads: the update body (create bodies are a superset). */
type FieldInput = Omit<UpdateLinkInput, 'domain' | 'key'>;

/** Tags requested by a body: ids take priority over names, then the deprecated single `tagId`. */
export type TagRequest = { ids: string[] } | { names: string[] } | undefined;

export function tagRequestOf(input: Pick<UpdateLinkInput, 'tagIds' | 'tagNames' | 'tagId'>): TagRequest {
  if (input.tagIds !== undefined) return { ids: input.tagIds };
  if (input.tagNames !== undefined) return { names: input.tagNames };
  if (input.tagId !== undefined) return { ids: input.tagId ? [input.tagId] : [] };
  return undefined;
}

/**
 * The column values a body sets, for the keys it contains (undefined = untouched). UTM fields are
 * merged into the destination (`baseUrl` when the body has no `url`), and the UTM columns are
 * always read back from the final URL (behaviour.md §1.2).
 */
export function prepareFields(input: FieldInput, baseUrl: string): LinkPatch {
  const p: LinkPatch = {};
  const set = <K extends keyof LinkPatch>(k: K, v: LinkPatch[K] | undefined) => {
    if (v !== undefined) p[k] = v;
  };
  const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);
  const nullable = <T>(v: T | null | undefined) => (v === undefined ? undefined : (v ?? null));

  let url = input.url;
  const params = Object.fromEntries(URL_PARAM_FIELDS.map((f) => [f, input[f]]));
  const hasParams = URL_PARAM_FIELDS.some((f) => input[f] !== undefined);
  const target = url ?? baseUrl;
  if (hasParams && target) url = mergeUtm(target, params);
  if (url !== undefined) {
    p.url = url;
    Object.assign(p, utmFromUrl(url));
  }
  set('external_id', nullable(input.externalId));
  set('tenant_id', nullable(input.tenantId));
  set('program_id', nullable(input.programId));
  set('partner_id', nullable(input.partnerId));
  set('track_conversion', flag(input.trackConversion));
  set('archived', flag(input.archived));
  set('folder_id', nullable(input.folderId));
  set('comments', nullable(input.comments));
  set('expires_at', nullable(input.expiresAt));
  set('expired_url', nullable(input.expiredUrl));
  set('password', nullable(input.password));
  set('proxy', flag(input.proxy));
  set('title', nullable(input.title));
  set('description', nullable(input.description));
  set('image', nullable(input.image));
  set('video', nullable(input.video));
  set('rewrite', flag(input.rewrite));
  set('ios', nullable(input.ios));
  set('android', nullable(input.android));
  set('geo', input.geo === undefined ? undefined : input.geo === null ? null : JSON.stringify(input.geo));
  set('do_index', flag(input.doIndex));
  set('test_variants', input.testVariants === undefined ? undefined : input.testVariants === null ? null : JSON.stringify(input.testVariants));
  set('test_started_at', nullable(input.testStartedAt));
  set('test_completed_at', nullable(input.testCompletedAt));
  set('public_stats', flag(input.publicStats));
  return p;
}

/** Rules that involve several fields of the resulting link. */
export function assertLinkRules(link: { key: string; url: string; track_conversion: number; test_variants: string | null }): void {
  if (!link.url && link.key !== ROOT_KEY) throw new ApiError('bad_request', 'Missing destination URL', { field: 'url' });
  if (link.test_variants && !link.track_conversion) {
    throw new ApiError('unprocessable_entity', 'Conversion tracking must be enabled to use A/B testing.', { field: 'testVariants' });
  }
}

export function createPreparer(deps: PrepareDeps) {
  const { store, shortDomain } = deps;

  /** The domain a body names (or the default), checked to belong to the workspace. */
  async function resolveDomain(caller: Caller, raw: string | undefined): Promise<string> {
    if (raw === undefined || raw === '') return (await store.primaryDomain(caller.workspaceId)) ?? shortDomain;
    const domain = normaliseDomain(raw);
    if (!domain) throw new ApiError('unprocessable_entity', `Invalid domain "${raw}": give a host name such as go.example.com, without protocol or path.`, { field: 'domain' });
    if (domain === shortDomain) return domain;
    if (!(await store.hasDomain(caller.workspaceId, domain))) throw new ApiError('forbidden', 'Domain does not belong to workspace.', { field: 'domain' });
    return domain;
  }

  /** A key the caller chose: valid, not reserved, not taken on the domain (without regard to case). */
  async function checkGivenKey(domain: string, raw: string, batch?: Batch): Promise<string> {
    const onDefaultDomain = domain === shortDomain;
    const processed = processKey(raw, { onDefaultDomain });
    if (!processed.ok) throw new ApiError('unprocessable_entity', processed.reason, { field: 'key' });
    const key = processed.key;
    if (key === ROOT_KEY && onDefaultDomain) {
      throw new ApiError('forbidden', 'The root of the default short domain cannot be a link; use a domain of your workspace.', { field: 'domain' });
    }
    const reserved = reservedKeyReason(key, { onDefaultDomain });
    if (reserved) throw new ApiError(reserved.status, reserved.message, { field: 'key' });
    const lower = lookupKey(key);
    if (batch?.keys.has(batchKey(domain, lower)) || (await store.keyTaken(domain, lower))) throw new ApiError('conflict', DUPLICATE_KEY, { field: 'key' });
    return key;
  }

  async function randomFreeKey(domain: string, keyLength: number | undefined, rawPrefix: string | undefined, batch?: Batch): Promise<string> {
    let prefix: string | undefined;
    if (rawPrefix) {
      const p = processKey(rawPrefix.replace(/^\//, '').replace(/\/$/, ''), { onDefaultDomain: domain === shortDomain });
      if (!p.ok || p.key === ROOT_KEY) throw new ApiError('unprocessable_entity', `Invalid prefix: ${p.ok ? 'reserved' : p.reason}`, { field: 'prefix' });
      prefix = p.key;
    }
    for (let i = 0; i < RANDOM_KEY_ATTEMPTS; i++) {
      const key = randomLinkKey(keyLength ?? DEFAULT_KEY_LENGTH, prefix);
      const lower = lookupKey(key);
      if (reservedKeyReason(key, { onDefaultDomain: domain === shortDomain })) continue;
      if (batch?.keys.has(batchKey(domain, lower))) continue;
      if (!(await store.keyTaken(domain, lower))) return key;
    }
    throw new ApiError('conflict', 'Could not find a free random key on this domain; use a larger keyLength.', { field: 'key' });
  }

  async function checkExternalId(caller: Caller, externalId: string, batch?: Batch): Promise<void> {
    if (batch?.externalIds.has(externalId) || (await store.externalIdTaken(caller.workspaceId, externalId))) {
      throw new ApiError('conflict', DUPLICATE_EXTERNAL_ID, { field: 'externalId' });
    }
  }

  /** Tag ids in the given order, without duplicates; unknown ids or names are a 422 naming them. */
  async function resolveTags(caller: Caller, request: TagRequest): Promise<string[] | undefined> {
    if (!request) return undefined;
    if ('ids' in request) {
      const ids = [...new Set(request.ids)];
      const found = await store.existingTagIds(caller.workspaceId, ids);
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length) throw new ApiError('unprocessable_entity', `Invalid tagIds detected: ${missing.join(', ')}`, { field: 'tagIds' });
      return ids;
    }
    const names = [...new Set(request.names.map((n) => n.toLowerCase()))];
    const byName = await store.tagsByNameKey(caller.workspaceId, names);
    const missing = request.names.filter((n) => !byName.has(n.toLowerCase()));
    if (missing.length) throw new ApiError('unprocessable_entity', `Invalid tagNames detected: ${missing.join(', ')}`, { field: 'tagNames' });
    return [...new Set(names.map((n) => byName.get(n)!))];
  }

  /** `webhookIds` without duplicates; another workspace's or unknown ids are a 422 naming them (the published wording). */
  async function resolveWebhooks(caller: Caller, ids: readonly string[] | null | undefined): Promise<string[] | undefined> {
    if (ids === undefined) return undefined;
    const unique = [...new Set(ids ?? [])];
    const found = await store.existingWebhookIds(caller.workspaceId, unique);
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length) throw new ApiError('unprocessable_entity', `Invalid webhookIds detected: ${missing.join(', ')}`, { field: 'webhookIds' });
    return unique;
  }

  async function checkFolder(caller: Caller, folderId: string | null | undefined): Promise<void> {
    if (folderId && !(await store.folderExists(caller.workspaceId, folderId))) throw new ApiError('not_found', 'Folder not found.', { field: 'folderId' });
  }

  return {
    resolveTags,
    checkFolder,

    /** The domain and key rules of a new link, without writing: the normalised pair, or the ApiError `prepareNew` would throw. */
    async checkKey(caller: Caller, rawDomain: string | undefined, rawKey: string): Promise<{ domain: string; key: string }> {
      const domain = await resolveDomain(caller, rawDomain);
      return { domain, key: await checkGivenKey(domain, rawKey) };
    },

    /** A new link row and its tags, or an ApiError. Records the key and external id in `batch`. */
    async prepareNew(caller: Caller, input: CreateLinkInput, batch?: Batch): Promise<LinkWrite> {
      const fields = prepareFields(input, '');
      const domain = await resolveDomain(caller, input.domain);
      const key = input.key ? await checkGivenKey(domain, input.key, batch) : await randomFreeKey(domain, input.keyLength, input.prefix, batch);
      const t = deps.now();
      // Every column spelled out, so the row is also the complete response (no re-read).
      const row: LinkRow = {
        ...EMPTY_COLUMNS,
        id: newId('link', t),
        workspace_id: caller.workspaceId,
        domain,
        key,
        key_lower: lookupKey(key),
        short_link: buildShortLink(deps, domain, key),
        track_conversion: caller.workspace.conversion_enabled ? 1 : 0,
        user_id: caller.userId,
        created_at: t,
        updated_at: t,
        ...(fields as Partial<LinkRow>),
      };
      assertLinkRules(row);
      if (row.external_id) await checkExternalId(caller, row.external_id, batch);
      const tagIds = (await resolveTags(caller, tagRequestOf(input))) ?? [];
      await checkFolder(caller, row.folder_id);
      const webhookIds = (await resolveWebhooks(caller, input.webhookIds)) ?? [];
      batch?.keys.add(batchKey(domain, row.key_lower));
      if (row.external_id) batch?.externalIds.add(row.external_id);
      return { row, tagIds, webhookIds };
    },

    /**
     * The changes a body makes to an existing link. Key checks run only when the domain or the
     * key (ignoring case) changes; the external id check only when it changes (behaviour.md §1.7).
     * `resolved` carries tags/folder already checked once for a bulk update.
     */
    async prepareUpdate(
      caller: Caller,
      existing: LinkRow,
      input: UpdateLinkInput,
      options: { batch?: Batch; resolvedTags?: string[] | undefined; tagsResolved?: boolean } = {},
    ): Promise<{ patch: LinkPatch; tagIds: string[] | undefined; webhookIds: string[] | undefined }> {
      const patch = prepareFields(input, existing.url);
      const domainGiven = input.domain !== undefined && input.domain !== '' ? await resolveDomainForUpdate(caller, existing, input.domain) : existing.domain;
      const keyGiven = input.key !== undefined && input.key !== '' ? input.key : undefined;
      let key = existing.key;
      const domainChanged = domainGiven !== existing.domain;
      if (keyGiven !== undefined || domainChanged) {
        if (existing.key === ROOT_KEY) {
          if (domainChanged || (keyGiven !== undefined && keyGiven !== ROOT_KEY)) {
            throw new ApiError('unprocessable_entity', "The domain and key of a domain's root link cannot be changed.", { field: 'key' });
          }
        } else {
          const candidate = keyGiven ?? existing.key;
          const processed = processKey(candidate, { onDefaultDomain: domainGiven === shortDomain });
          if (!processed.ok) throw new ApiError('unprocessable_entity', processed.reason, { field: 'key' });
          const sameLink = !domainChanged && lookupKey(processed.key) === existing.key_lower;
          key = sameLink ? processed.key : await checkGivenKey(domainGiven, candidate, options.batch);
        }
      }
      if (domainChanged || key !== existing.key) {
        patch.domain = domainGiven;
        patch.key = key;
        patch.key_lower = lookupKey(key);
        patch.short_link = buildShortLink(deps, domainGiven, key);
      }
      if (patch.external_id && patch.external_id !== existing.external_id) await checkExternalId(caller, patch.external_id, options.batch);
      const merged = { ...existing, ...patch };
      assertLinkRules({ key: merged.key, url: merged.url, track_conversion: Number(merged.track_conversion), test_variants: merged.test_variants ?? null });
      const tagIds = options.tagsResolved ? options.resolvedTags : await resolveTags(caller, tagRequestOf(input));
      if (!options.tagsResolved) await checkFolder(caller, patch.folder_id);
      const webhookIds = await resolveWebhooks(caller, input.webhookIds);
      if (patch.key_lower) options.batch?.keys.add(batchKey(merged.domain, patch.key_lower));
      if (patch.external_id) options.batch?.externalIds.add(patch.external_id);
      patch.updated_at = deps.now();
      return { patch, tagIds, webhookIds };
    },
  };

  /** On update, the link's own domain needs no ownership check (it may be the default one). */
  async function resolveDomainForUpdate(caller: Caller, existing: LinkRow, raw: string): Promise<string> {
    const domain = normaliseDomain(raw);
    if (domain === existing.domain) return domain;
    return resolveDomain(caller, raw);
  }
}

export type Preparer = ReturnType<typeof createPreparer>;

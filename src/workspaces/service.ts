/**
 * Workspace rules: creation with per-plan limits, API keys, authentication, the workspace API.
 */
import { fieldsOf, record, type Who } from '../audit/record.js';
import { randomBytes } from 'node:crypto';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { PLAN_LIMITS, PLANS, type Plan } from './plans.js';
import { generateApiKey, hashApiKey, partialKey, permissionsFor, type Permission } from './api-keys.js';
import type { WorkspaceRow, WorkspaceStore, ApiKeyRow } from './store.js';
import type { TransactionStep } from '../db/tables.js';
import { toWorkspaceResponse, type WorkspaceResponse } from './schema.js';

/** What an authenticated request knows about its caller. */
export interface AuthContext {
  workspaceId: string;
  workspace: WorkspaceRow;
  keyId: string;
  keyHash: string;
  permissions: Set<Permission> | 'all';
}

export interface CreatedKey {
  id: string;
  key: string;
  partialKey: string;
}

const RESERVED_SLUGS = new Set(['api', 'app', 'admin', 'docs', 'www', 'health', 'openapi', 'static', 'login', 'settings']);

export function limitsForPlan(plan: Plan) {
  const p = PLAN_LIMITS[plan];
  return {
    links_limit: p.linksLimit,
    usage_limit: p.usageLimit,
    domains_limit: p.domainsLimit,
    tags_limit: p.tagsLimit,
    folders_limit: p.foldersLimit,
    users_limit: p.usersLimit,
    ai_limit: p.aiLimit,
    payouts_limit: p.payoutsLimit,
    groups_limit: p.groupsLimit,
    network_invites_limit: p.networkInvitesLimit,
    payout_fee: p.payoutFee,
  };
}

/** Refuses a reserved slug (422, at the form's `slug` field). */
export function assertSlugAllowed(slug: string): void {
  if (RESERVED_SLUGS.has(slug)) throw new ApiError('unprocessable_entity', `The slug "${slug}" is reserved.`, { field: 'slug' });
}

/** A slug made from a name: `Acme Inc.` → `acme-inc` (at least 3 characters). */
export function slugify(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return s.length >= 3 ? s : `workspace-${s}`.replace(/-+$/, '');
}

/** A key's "last used" is written at most this often (per key; API requests only, never redirects). */
export const KEY_USE_RECORD_MS = 60_000;

export function createWorkspaceService(store: WorkspaceStore, now: () => number = Date.now) {
  /** When this process last wrote each key's use: a burst of requests costs one write a minute. */
  const lastRecorded = new Map<string, number>();
  /**
   * "Last used" for the keys page, off the request's path: not awaited, and a failure (the
   * database closing at shutdown) only leaves the time older. The update's own condition keeps
   * several processes to one write a minute too.
   */
  function recordUse(key: Pick<ApiKeyRow, 'id' | 'last_used_at'>): void {
    const t = now();
    const last = Math.max(lastRecorded.get(key.id) ?? -Infinity, key.last_used_at ?? -Infinity);
    if (t - last < KEY_USE_RECORD_MS) return;
    lastRecorded.set(key.id, t);
    if (lastRecorded.size > 10_000) lastRecorded.delete(lastRecorded.keys().next().value!);
    store.touchKey(key.id, t, KEY_USE_RECORD_MS).catch(() => lastRecorded.delete(key.id));
  }

  async function uniqueSlug(base: string): Promise<string> {
    let slug = base;
    for (let i = 2; await store.findBySlug(slug); i++) slug = `${base}-${i}`;
    return slug;
  }

  const service = {
    /**
     * Creates a workspace; `first` runs in its transaction, after the insert and before the audit
     * entry (the dashboard's creator becomes its owner there, creation.ts).
     */
    async createWorkspace(input: { name: string; slug?: string; plan?: Plan; id?: string }, who?: Who, first?: TransactionStep): Promise<WorkspaceRow> {
      const plan = input.plan ?? 'enterprise';
      if (!PLANS.includes(plan)) throw new ApiError('unprocessable_entity', `Unknown plan "${plan}".`);
      const slug = input.slug ?? (await uniqueSlug(slugify(input.name)));
      if (await store.findBySlug(slug)) throw new ApiError('conflict', `The slug "${slug}" is already in use.`, { field: 'slug' });
      const t = now();
      const row: WorkspaceRow = {
        id: input.id ?? newId('ws', t),
        name: input.name,
        slug,
        logo: null,
        invite_code: randomBytes(12).toString('base64url'),
        plan,
        plan_tier: 1,
        billing_cycle_start: new Date(t).getUTCDate(),
        conversion_enabled: 0,
        usage: 0,
        links_usage: 0,
        total_links: 0,
        folders_usage: 0,
        ai_usage: 0,
        payouts_usage: 0,
        store: null,
        flags: null,
        allowed_hostnames: null,
        created_at: t,
        updated_at: t,
        ...limitsForPlan(plan),
      };
      try {
        await store.insert(row, async (trx) => {
          await first?.(trx);
          await record(trx, who, { workspaceId: row.id, action: 'workspace.create', targetIds: row.id, changes: { name: row.name, slug: row.slug, plan: row.plan } });
        });
      } catch (err) {
        // Two creations of one slug at once: the unique index refuses the later; say so as the check above would.
        if (!(err instanceof ApiError) && (await store.findBySlug(slug))) throw new ApiError('conflict', `The slug "${slug}" is already in use.`, { field: 'slug' });
        throw err;
      }
      return row;
    },

    /** A free slug for `name` (`acme`, else `acme-2`, …): the new-workspace form's suggestion. */
    suggestSlug: (name: string): Promise<string> => uniqueSlug(slugify(name)),

    /** Creates an API key; returns the key itself once (only its hash is stored). */
    async createKey(workspaceId: string, input: { name?: string; scopes?: string[] | null; key?: string }, who?: Who): Promise<CreatedKey> {
      const key = input.key ?? generateApiKey();
      const id = newId('key', now());
      await store.insertKey({
        id,
        workspace_id: workspaceId,
        name: input.name ?? 'API key',
        hashed_key: hashApiKey(key),
        partial_key: partialKey(key),
        scopes: input.scopes && input.scopes.length ? input.scopes.join(' ') : null,
        created_at: now(),
        last_used_at: null,
        revoked_at: null,
      }, (trx) => record(trx, who, { workspaceId, action: 'api_key.create', targetIds: id, changes: { name: input.name ?? 'API key', scopes: input.scopes?.length ? input.scopes : 'all' } }));
      return { id, key, partialKey: partialKey(key) };
    },

    listKeys: (workspaceId: string): Promise<ApiKeyRow[]> => store.listKeys(workspaceId),
    revokeKey: (workspaceId: string, keyId: string, who?: Who): Promise<boolean> =>
      store.revokeKey(workspaceId, keyId, now(), (trx) => record(trx, who, { workspaceId, action: 'api_key.revoke', targetIds: keyId })),
    listWorkspaces: () => store.list(),
    findWorkspace: (idOrSlug: string) => store.findByIdOrSlug(idOrSlug),

    /**
     * Resolves a bearer key to its workspace and permissions, or throws 401.
     * The lookup is by hash, so the comparison of secrets happens inside the index
     * on fixed-length digests and leaks nothing about the key.
     */
    async authenticate(key: string): Promise<AuthContext> {
      const hash = hashApiKey(key);
      const found = await store.findKeyByHash(hash);
      if (!found || found.key.revoked_at !== null) throw new ApiError('unauthorized', 'Unauthorized: Invalid API key.');
      recordUse(found.key);
      return {
        workspaceId: found.workspace.id,
        workspace: found.workspace,
        keyId: found.key.id,
        keyHash: hash,
        permissions: permissionsFor(found.key.scopes ? found.key.scopes.split(' ') : null),
      };
    },

    /**
     * First start: make sure a default workspace exists. With `apiKey` (WAYMARK_API_KEY) that key
     * is attached to the default workspace. Returns a key to print when one was generated.
     */
    async ensureDefault(apiKey?: string): Promise<{ workspace: WorkspaceRow; createdKey?: string; created: boolean }> {
      const existing = (await store.list())[0];
      const workspace = existing ?? (await service.createWorkspace({ name: 'Default workspace', slug: 'default', plan: 'enterprise' }));
      if (apiKey) {
        const found = await store.findKeyByHash(hashApiKey(apiKey));
        if (!found) await service.createKey(workspace.id, { name: 'WAYMARK_API_KEY', key: apiKey });
        return { workspace, created: !existing };
      }
      if (!existing) {
        const { key } = await service.createKey(workspace.id, { name: 'Default key' });
        return { workspace, createdKey: key, created: true };
      }
      return { workspace, created: false };
    },

    async getForCaller(auth: AuthContext, idOrSlug: string): Promise<WorkspaceResponse> {
      const row = await store.findByIdOrSlug(idOrSlug);
      // Another workspace answers exactly like a missing one: its existence is not revealed.
      if (!row || row.id !== auth.workspaceId) throw new ApiError('not_found', 'Workspace not found.');
      return toWorkspaceResponse(row, await store.domainsOf(row.id));
    },

    async update(
      auth: AuthContext,
      idOrSlug: string,
      patch: { name?: string; slug?: string; logo?: string | null; conversionEnabled?: boolean },
      who?: Who,
    ): Promise<WorkspaceResponse> {
      const row = await store.findByIdOrSlug(idOrSlug);
      if (!row || row.id !== auth.workspaceId) throw new ApiError('not_found', 'Workspace not found.');
      if (patch.slug !== undefined) {
        const slug = patch.slug.toLowerCase();
        assertSlugAllowed(slug);
        const other = await store.findBySlug(slug);
        if (other && other.id !== row.id) throw new ApiError('conflict', `The slug "${slug}" is already in use.`, { field: 'slug' });
        patch.slug = slug;
      }
      if (patch.logo !== undefined && patch.logo !== null && !/^(https?:\/\/|data:image\/(png|jpeg|jpg|gif|webp);base64,)/.test(patch.logo)) {
        throw new ApiError('unprocessable_entity', 'invalid_format: logo: Logo must be an http(s) URL or a base64 image data URL.');
      }
      await store.update(row.id, {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.slug !== undefined ? { slug: patch.slug } : {}),
        ...(patch.logo !== undefined ? { logo: patch.logo } : {}),
        ...(patch.conversionEnabled !== undefined ? { conversion_enabled: patch.conversionEnabled ? 1 : 0 } : {}),
        updated_at: now(),
      }, (trx) => record(trx, who, { workspaceId: row.id, action: 'workspace.update', targetIds: row.id, changes: { fields: fieldsOf(patch) } }));
      return service.getForCaller(auth, row.id);
    },
  };
  return service;
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;

/**
 * The target side of a migration: copies domains, tags, folders, links and customers read from
 * the source into one workspace, through the concepts' own services and rules (validation,
 * quotas, unique keys), with the source's `createdAt` kept. Each copy is idempotent by a natural
 * key (domain slug, tag and folder name, link domain + key, customer external id), so a re-run
 * maps what is already there instead of copying it again.
 *
 * With `dryRun` nothing is written: each copy is judged by the same look-ups and rules (existing,
 * taken by another workspace, quotas, the link rules of links/prepare.ts) against what the
 * database holds plus what the run would have created before it (`Planned`), and answers the
 * outcome a run would have, with a placeholder id.
 *
 * @example
 * const target = await createTarget({ database, config, workspace });
 * const tagId = await target.tag({ id: 'tag_src', name: 'Spring', color: 'red' });
 */
import { z } from 'zod';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import { createChangeBus } from '../db/change-bus.js';
import { ApiError, formatZodError } from '../http/errors.js';
import { newId } from '../ids.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { createDomainStore } from '../domains/store.js';
import { createDomainService } from '../domains/service.js';
import { CreateDomainBody } from '../domains/schema.js';
import { domainSlugProblem, reservedHostsOf } from '../domains/validation.js';
import { limitReachedMessage } from '../workspaces/quota.js';
import { createTagStore } from '../tags/store.js';
import { createTagService } from '../tags/service.js';
import { TAG_COLORS } from '../links/response.js';
import { createFolderStore } from '../folders/store.js';
import { createFolderService } from '../folders/service.js';
import { FOLDER_ACCESS_LEVELS } from '../folders/schema.js';
import { createLinkStore, type LinkStore } from '../links/store.js';
import { createPreparer, type Caller } from '../links/prepare.js';
import { CreateLinkBody } from '../links/schema.js';
import { lookupKey, normaliseDomain } from '../links/keys.js';
import { createCustomerStore } from '../customers/store.js';

/** What the source answers for each resource (the published shapes; unknown fields pass). */
export const SourceDomain = z.looseObject({ slug: z.string(), primary: z.boolean().nullish(), archived: z.boolean().nullish(), createdAt: z.string().nullish() });
export const SourceTag = z.looseObject({ id: z.string(), name: z.string().trim().min(1).max(190), color: z.string().nullish() });
export const SourceFolder = z.looseObject({ id: z.string(), name: z.string().trim().min(1).max(190), description: z.string().max(500).nullish(), accessLevel: z.string().nullish(), createdAt: z.string().nullish() });
export const SourceLink = z.looseObject({
  id: z.string(),
  domain: z.string(),
  key: z.string(),
  url: z.string(),
  tags: z.array(z.looseObject({ id: z.string(), name: z.string() })).nullish(),
  folderId: z.string().nullish(),
  disabledAt: z.string().nullish(),
  userId: z.string().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
});
export const SourceCustomer = z.looseObject({
  id: z.string().min(1).max(255),
  externalId: z.string().max(255).nullish(),
  name: z.string().max(255).nullish(),
  email: z.string().max(255).nullish(),
  // Shown as an image by clients: kept only when it is an http(s) URL.
  avatar: z.string().max(2000).nullish().transform((v) => (v && /^https?:\/\//i.test(v) && URL.canParse(v) ? v : null)),
  country: z.string().max(8).nullish(),
  sales: z.number().nullish(),
  saleAmount: z.number().nullish(),
  createdAt: z.string().nullish(),
});
export type SourceLink = z.infer<typeof SourceLink>;

/** What one copy did: created, found already there (mapped), or refused with a reason. */
export type CopyOutcome = { result: 'created' | 'existing'; id: string } | { result: 'rejected'; reason: string };

/** ms of an ISO (or any Date-parsable) time, or the fallback. */
export function msOf(text: string | null | undefined, fallback: number): number {
  const t = text ? Date.parse(text) : NaN;
  return Number.isNaN(t) ? fallback : t;
}

/** A resolver that finds nothing: copied domains start unverified whatever DOMAIN_VERIFICATION says. */
const NO_DNS = { resolveCname: async () => [], resolve4: async () => [], resolve6: async () => [] };

/** What a dry run would have created so far, for the checks of the items after it. */
interface Planned {
  domains: Set<string>;
  tags: Map<string, string>;
  folders: Map<string, string>;
  /** `domain/key` (lookup form) of planned links, with their placeholder ids. */
  links: Map<string, string>;
  externalIds: Set<string>;
}

/** The link store as a dry run sees it: planned domains, keys and external ids count as there. */
function withPlanned(store: LinkStore, workspaceId: string, planned: Planned): LinkStore {
  return {
    ...store,
    hasDomain: async (ws, slug) => (ws === workspaceId && planned.domains.has(slug)) || store.hasDomain(ws, slug),
    keyTaken: async (domain, keyLower) => planned.links.has(`${domain}/${keyLower}`) || store.keyTaken(domain, keyLower),
    externalIdTaken: async (ws, externalId) => (ws === workspaceId && planned.externalIds.has(externalId)) || store.externalIdTaken(ws, externalId),
  };
}

export async function createTarget(input: { database: OpenDatabase; config: Config; workspace: WorkspaceRow; now?: () => number; dryRun?: boolean }) {
  const { database, config } = input;
  const { db, dialect } = database;
  const wallClock = input.now ?? Date.now;
  // The services stamp rows with `now()`: during a copy it answers the source's creation time.
  let stamp: number | undefined;
  const now = () => stamp ?? wallClock();
  const at = async <T>(t: number, work: () => Promise<T>): Promise<T> => {
    stamp = t;
    try {
      return await work();
    } finally {
      stamp = undefined;
    }
  };
  const bus = createChangeBus();
  const domainStore = createDomainStore(db, dialect);
  const domains = createDomainService({ store: domainStore, dialect, config: { ...config, domainVerification: 'dns' }, bus, resolver: NO_DNS, now });
  const tagStore = createTagStore(db, dialect);
  const tags = createTagService(tagStore, dialect, now);
  const folderStore = createFolderStore(db, dialect);
  const folders = createFolderService(folderStore, dialect, now);
  const linkStore = createLinkStore(db, dialect);
  const customers = createCustomerStore(db, dialect);
  const workspace = input.workspace;
  const workspaceId = workspace.id;
  const caller: Caller = { workspaceId, workspace, userId: null };
  const dryRun = !!input.dryRun;
  const planned: Planned = { domains: new Set(), tags: new Map(), folders: new Map(), links: new Map(), externalIds: new Set() };
  const plannedId = (kind: string, name: string) => `planned:${kind}:${name}`;
  const preparer = createPreparer({ store: dryRun ? withPlanned(linkStore, workspaceId, planned) : linkStore, shortDomain: config.shortDomain, shortLinkProtocol: config.shortLinkProtocol, now });
  const reservedHosts = reservedHostsOf(config);
  /** A dry run's quota check: what the database holds plus what the run would have added. */
  const overLimit = (resource: 'tags' | 'folders' | 'domains', count: number, limit: number): CopyOutcome | undefined =>
    count >= limit ? { result: 'rejected', reason: limitReachedMessage(resource, limit, workspace.plan) } : undefined;
  /** A dry run's tag or folder by name: planned already, over the quota, or planned now. */
  const planNamed = async (resource: 'tags' | 'folders', name: string, stored: () => Promise<number>, limit: number): Promise<CopyOutcome> => {
    const names = planned[resource];
    const nameKey = name.toLowerCase();
    const known = names.get(nameKey);
    if (known) return { result: 'existing', id: known };
    const full = overLimit(resource, (await stored()) + names.size, limit);
    if (full) return full;
    names.set(nameKey, plannedId(resource, nameKey));
    return { result: 'created', id: names.get(nameKey)! };
  };

  const rejected = (err: unknown): CopyOutcome => {
    if (err instanceof ApiError) return { result: 'rejected', reason: err.message };
    throw err;
  };

  return {
    workspaceId,
    dryRun,

    /** Lower-cased `domain/key` → id of the links a dry run would have created (events are judged against them). */
    plannedLinks: (): ReadonlyMap<string, string> => planned.links,

    /** Whether the workspace has the domain here (or a dry run would have added it). */
    async hasDomain(slug: string): Promise<boolean> {
      return planned.domains.has(slug) || linkStore.hasDomain(workspaceId, slug);
    },

    async domain(raw: unknown): Promise<CopyOutcome> {
      const parsedDomain = SourceDomain.safeParse(raw);
      if (!parsedDomain.success) return { result: 'rejected', reason: formatZodError(parsedDomain.error) };
      const src = parsedDomain.data;
      const slug = normaliseDomain(src.slug) ?? src.slug;
      const existing = await domainStore.findBySlug(workspaceId, slug);
      if (existing) return { result: 'existing', id: existing.id };
      const given = raw as Record<string, unknown>;
      // The create body's own rules (URLs, lengths); nulls are "not set".
      const body = CreateDomainBody.safeParse({
        slug,
        archived: !!src.archived,
        ...Object.fromEntries(['expiredUrl', 'notFoundUrl', 'placeholder', 'logo', 'assetLinks', 'appleAppSiteAssociation'].map((k) => [k, given[k] ?? undefined])),
      });
      if (!body.success) return { result: 'rejected', reason: formatZodError(body.error) };
      if (dryRun) {
        const problem = domainSlugProblem(slug, reservedHosts);
        if (problem) return { result: 'rejected', reason: `custom: slug: ${problem}` };
        if (await domainStore.findBySlugAnywhere(slug)) return { result: 'rejected', reason: 'Domain is already in use.' };
        const full = overLimit('domains', (await domainStore.count(workspaceId)) + planned.domains.size, workspace.domains_limit);
        if (full) return full;
        planned.domains.add(slug);
        return { result: 'created', id: plannedId('domain', slug) };
      }
      try {
        const created = await at(msOf(src.createdAt, wallClock()), () => domains.create(workspace, body.data));
        if (src.primary && !created.primary) await domains.update(workspaceId, slug, { primary: true, expiredUrl: undefined, notFoundUrl: undefined, placeholder: undefined, assetLinks: undefined, appleAppSiteAssociation: undefined });
        return { result: 'created', id: created.id };
      } catch (err) {
        return rejected(err);
      }
    },

    async tag(raw: unknown): Promise<CopyOutcome> {
      const parsedTag = SourceTag.safeParse(raw);
      if (!parsedTag.success) return { result: 'rejected', reason: formatZodError(parsedTag.error) };
      const src = parsedTag.data;
      const existing = await tagStore.findByNameKey(workspaceId, src.name.toLowerCase());
      if (existing) return { result: 'existing', id: existing.id };
      const color = (TAG_COLORS as readonly string[]).includes(src.color ?? '') ? (src.color as (typeof TAG_COLORS)[number]) : undefined;
      if (dryRun) return planNamed('tags', src.name, () => tagStore.count(workspaceId), workspace.tags_limit);
      try {
        return { result: 'created', id: (await tags.create(workspace, { name: src.name, color })).id };
      } catch (err) {
        return rejected(err);
      }
    },

    async folder(raw: unknown): Promise<CopyOutcome> {
      const parsedFolder = SourceFolder.safeParse(raw);
      if (!parsedFolder.success) return { result: 'rejected', reason: formatZodError(parsedFolder.error) };
      const src = parsedFolder.data;
      const existing = await folderStore.findByNameKey(workspaceId, src.name.toLowerCase());
      if (existing) return { result: 'existing', id: existing.id };
      const accessLevel = (FOLDER_ACCESS_LEVELS as readonly string[]).includes(src.accessLevel ?? '') ? (src.accessLevel as (typeof FOLDER_ACCESS_LEVELS)[number]) : 'write';
      if (dryRun) return planNamed('folders', src.name, () => folderStore.count(workspaceId), workspace.folders_limit);
      try {
        const created = await at(msOf(src.createdAt, wallClock()), () => folders.create(workspace, { name: src.name, description: src.description ?? null, accessLevel }));
        return { result: 'created', id: created.id };
      } catch (err) {
        return rejected(err);
      }
    },

    /**
     * A link with every field the create body takes, plus `createdAt`, `updatedAt`, `disabledAt`
     * and `userId` as the source has them; tags and folder by their ids in the target. Counters
     * start at zero (the copied events count them, events.ts), or at what `clicks` answers when the
     * source gives only a total (Bitly), set in the same transaction as the link.
     *
     * `to.domain` is where the link goes (domain-plan.ts). A link moved to another domain than
     * its source's is found again on a re-run only when it is the one an earlier run copied (the
     * same creation time): a link of the workspace's own that happens to have the key is not
     * taken for it.
     */
    async link(raw: unknown, ids: { tags: ReadonlyMap<string, string>; folders: ReadonlyMap<string, string> }, to: { domain: string; clicks?: () => Promise<number> }): Promise<CopyOutcome> {
      const parsedLink = SourceLink.safeParse(raw);
      if (!parsedLink.success) return { result: 'rejected', reason: formatZodError(parsedLink.error) };
      const src = parsedLink.data;
      const domain = to.domain;
      const moved = domain !== (normaliseDomain(src.domain) ?? src.domain.toLowerCase());
      const created = msOf(src.createdAt, wallClock());
      const keyLower = lookupKey(src.key);
      const existing = await linkStore.findByDomainKey(domain, keyLower);
      if (existing) {
        // Keys are unique per domain across the service: another workspace's is a refusal.
        if (existing.workspace_id !== workspaceId) return { result: 'rejected', reason: `the key is taken on ${domain} by another workspace` };
        if (moved && src.createdAt && Number(existing.created_at) !== created) return { result: 'rejected', reason: `the key is taken on ${domain} by another link of this workspace` };
        return { result: 'existing', id: existing.id };
      }
      const plannedLink = planned.links.get(`${domain}/${keyLower}`);
      if (plannedLink) return { result: 'existing', id: plannedLink };
      const real = (id: string | undefined) => (id && !id.startsWith('planned:') ? id : undefined);
      const tagIds: string[] = [];
      for (const t of src.tags ?? []) {
        const id = ids.tags.get(t.id) ?? (await tagStore.findByNameKey(workspaceId, t.name.toLowerCase()))?.id;
        // A tag a dry run would have created exists in a real run: judged without it.
        if (real(id)) tagIds.push(id!);
      }
      const folderId = src.folderId ? ids.folders.get(src.folderId) : null;
      if (src.folderId && !folderId) return { result: 'rejected', reason: 'its folder was not copied' };
      const body = { ...(raw as Record<string, unknown>), domain, tagIds, folderId: real(folderId ?? undefined) ?? null, tagId: undefined, tagNames: undefined, webhookIds: undefined, keyLength: undefined, prefix: undefined };
      const parsed = CreateLinkBody.safeParse(body);
      if (!parsed.success) return { result: 'rejected', reason: formatZodError(parsed.error) };
      try {
        const write = await at(created, () => preparer.prepareNew(caller, parsed.data));
        write.row.updated_at = msOf(src.updatedAt, created);
        write.row.disabled_at = src.disabledAt ? msOf(src.disabledAt, created) : null;
        write.row.user_id = src.userId ?? null;
        // Asked only for a link about to be created: a re-run asks the source nothing for the others.
        if (to.clicks) write.row.clicks = await to.clicks();
        if (dryRun) {
          if (workspace.links_usage + planned.links.size + 1 > workspace.links_limit) return { result: 'rejected', reason: `the workspace's link limit (${workspace.links_limit}) is reached` };
          const id = plannedId('link', `${domain}/${keyLower}`);
          planned.links.set(`${domain}/${keyLower}`, id);
          if (write.row.external_id) planned.externalIds.add(write.row.external_id);
          return { result: 'created', id };
        }
        const result = await linkStore.insertLinks(workspaceId, [write]);
        if (result === 'over_limit') return { result: 'rejected', reason: `the workspace's link limit (${workspace.links_limit}) is reached` };
        bus.publish({ type: 'link', domain: write.row.domain, key: write.row.key });
        return { result: 'created', id: write.row.id };
      } catch (err) {
        if (dialect.isUniqueViolation(err)) return { result: 'rejected', reason: `the key or the externalId is taken on ${domain}` };
        return rejected(err);
      }
    },

    /**
     * A customer, by external id; the source's id is kept when it is free. `sales` and
     * `saleAmount` are copied as the source counts them (sales copied later add nothing to them).
     */
    async customer(raw: unknown): Promise<CopyOutcome> {
      const parsedCustomer = SourceCustomer.safeParse(raw);
      if (!parsedCustomer.success) return { result: 'rejected', reason: formatZodError(parsedCustomer.error) };
      const src = parsedCustomer.data;
      const externalId = src.externalId || src.id;
      const existing = (await customers.findByExternalId(workspaceId, externalId)) ?? (await customers.findById(workspaceId, src.id));
      if (existing) return { result: 'existing', id: existing.id };
      if (dryRun) return { result: 'created', id: src.id };
      const created = msOf(src.createdAt, wallClock());
      const row = {
        workspace_id: workspaceId,
        external_id: externalId,
        name: src.name ?? externalId,
        email: src.email ?? null,
        avatar: src.avatar ?? null,
        country: src.country ?? null,
        processor_customer_id: null,
        click_id: null,
        link_id: null,
        sales: Math.max(0, Math.trunc(src.sales ?? 0)),
        sale_amount: Math.max(0, Math.trunc(src.saleAmount ?? 0)),
        first_sale_at: null,
        created_at: created,
        updated_at: created,
      };
      for (const id of [src.id, newId('cus', created)]) {
        try {
          await customers.insert({ ...row, id });
          return { result: 'created', id };
        } catch (err) {
          // The source's id is taken (by another workspace): a fresh one.
          if (!dialect.isUniqueViolation(err) || id !== src.id) throw err;
          const again = await customers.findByExternalId(workspaceId, externalId);
          if (again) return { result: 'existing', id: again.id };
        }
      }
      throw new Error('unreachable');
    },
  };
}

export type Target = Awaited<ReturnType<typeof createTarget>>;

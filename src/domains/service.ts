/**
 * Domain rules: service-wide unique slugs, one primary domain per workspace, un-archiving on
 * create, the `domainsLimit` quota, renames that carry the links along, deletes that take them
 * with them, `verified` per the configured mode, and cache invalidation through the change bus.
 */
import { fieldsOf, record, type Who } from '../audit/record.js';
import type { Config } from '../config.js';
import type { ChangeBus } from '../db/change-bus.js';
import type { Dialect } from '../db/dialect.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { buildShortLink } from '../links/response.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { assertUnderLimit } from '../workspaces/quota.js';
import { toDomainResponse, type CreateDomainBody, type DomainResponse, type DomainRow, type ListDomainsQuery, type UpdateDomainBody } from './schema.js';
import type { DomainStore } from './store.js';
import { domainSlugProblem, normalizeDomainSlug, reservedHostsOf } from './validation.js';
import { checkDomainDns, type DnsResolver, type DnsVerdict } from './verification.js';

export interface DomainServiceDeps {
  store: DomainStore;
  dialect: Dialect;
  config: Pick<Config, 'shortDomain' | 'apiHosts' | 'shortLinkProtocol' | 'baseUrl' | 'domainVerification' | 'domainDnsTarget'>;
  bus: ChangeBus;
  resolver: DnsResolver;
  now?: () => number;
}

/** Where a slug stands for a workspace that would add it (`standingOf`). */
export type DomainStanding = 'owned' | 'taken' | 'addable' | 'refused';

/** What `verifyDomain` reports to the CLI. */
export interface DomainVerification extends DnsVerdict {
  slug: string;
  workspaceId: string;
}

const IN_USE = 'Domain is already in use.';
const notFound = (slug: string) => new ApiError('not_found', `Domain ${slug} not found.`);

/** The optional settings of a domain, body field → column (undefined = not given, leave as is). */
function settingsPatch(input: Partial<Pick<CreateDomainBody, 'expiredUrl' | 'notFoundUrl' | 'placeholder' | 'logo' | 'assetLinks' | 'appleAppSiteAssociation'>>) {
  const out: Partial<Pick<DomainRow, 'expired_url' | 'not_found_url' | 'placeholder' | 'logo' | 'asset_links' | 'apple_app_site_association'>> = {};
  if (input.expiredUrl !== undefined) out.expired_url = input.expiredUrl;
  if (input.notFoundUrl !== undefined) out.not_found_url = input.notFoundUrl;
  if (input.placeholder !== undefined) out.placeholder = input.placeholder;
  if (input.logo !== undefined) out.logo = input.logo;
  if (input.assetLinks !== undefined) out.asset_links = input.assetLinks;
  if (input.appleAppSiteAssociation !== undefined) out.apple_app_site_association = input.appleAppSiteAssociation;
  return out;
}

export function createDomainService(deps: DomainServiceDeps) {
  const { store, dialect, config, bus, resolver } = deps;
  const now = deps.now ?? Date.now;
  const reserved = reservedHostsOf(config);
  const dnsTarget = config.domainDnsTarget ?? new URL(config.baseUrl).hostname;

  /** The service's own host names are refused here; the shape was checked by the schema. */
  function assertAllowed(slug: string): void {
    const problem = domainSlugProblem(slug, reserved);
    if (problem) throw new ApiError('unprocessable_entity', `custom: slug: ${problem}`);
  }

  /** `verified` for a domain being added or renamed, per `DOMAIN_VERIFICATION`. */
  async function verdict(slug: string): Promise<DnsVerdict> {
    if (config.domainVerification === 'off') return { verified: true, reason: 'Verification is off: domains are verified when added.' };
    return checkDomainDns(slug, dnsTarget, resolver);
  }

  /** A racing insert or rename that lost to the unique index answers like the pre-check. */
  async function guardInUse<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (dialect.isUniqueViolation(err)) throw new ApiError('conflict', IN_USE, { cause: err });
      throw err;
    }
  }

  async function getRow(workspaceId: string, rawSlug: string): Promise<DomainRow> {
    const slug = normalizeDomainSlug(rawSlug);
    const row = await store.findBySlug(workspaceId, slug);
    // Another workspace's domain answers exactly like a missing one.
    if (!row) throw notFound(slug);
    return row;
  }

  const service = {
    /**
     * Adds a domain. A slug already archived in this workspace is un-archived when `archived` is
     * false (the default) and answered like a creation (201, with the given settings applied);
     * any other existing slug is 409, whichever workspace holds it.
     */
    async create(workspace: WorkspaceRow, input: CreateDomainBody, options: { imported?: boolean } = {}, who?: Who): Promise<DomainResponse> {
      assertAllowed(input.slug);
      // Imports add the domains their links name unverified (no DNS look-up per domain) and never
      // primary: the workspace's default domain for new links stays the one its owner chose.
      const verified = options.imported ? false : (await verdict(input.slug)).verified;
      const row = await guardInUse(() =>
        store.transaction(async (tx, trx) => {
          await tx.lockWorkspace(workspace.id);
          const t = now();
          const existing = await tx.findBySlugAnywhere(input.slug);
          if (existing) {
            if (existing.workspace_id !== workspace.id || existing.archived !== 1 || input.archived) throw new ApiError('conflict', IN_USE);
            const patch = { ...settingsPatch(input), archived: 0 as const, updated_at: t };
            await tx.update(workspace.id, existing.id, patch);
            await record(trx, who, { workspaceId: workspace.id, action: 'domain.create', targetIds: existing.id, changes: { slug: input.slug, restored: true } });
            return { ...existing, ...patch };
          }
          assertUnderLimit({ resource: 'domains', count: await tx.count(workspace.id), limit: workspace.domains_limit, plan: workspace.plan });
          // The first active domain of a workspace (or the first after its primary was deleted) is primary.
          const primary = !options.imported && !input.archived && !(await tx.findPrimary(workspace.id));
          const created: DomainRow = {
            id: newId('dom', t),
            workspace_id: workspace.id,
            slug: input.slug,
            verified: verified ? 1 : 0,
            primary: primary ? 1 : 0,
            archived: input.archived ? 1 : 0,
            placeholder: null,
            expired_url: null,
            not_found_url: null,
            logo: null,
            asset_links: null,
            apple_app_site_association: null,
            ...settingsPatch(input),
            created_at: t,
            updated_at: t,
          };
          await tx.insert(created);
          await record(trx, who, { workspaceId: workspace.id, action: 'domain.create', targetIds: created.id, changes: { slug: created.slug } });
          return created;
        }),
      );
      // A redirect process may have cached "unknown domain" for this host.
      bus.publish({ type: 'domain', domain: row.slug });
      return toDomainResponse(row);
    },

    async list(workspaceId: string, q: ListDomainsQuery): Promise<DomainResponse[]> {
      const rows = await store.list(workspaceId, { archived: q.archived, search: q.search, limit: q.pageSize, offset: (q.page - 1) * q.pageSize });
      return rows.map(toDomainResponse);
    },

    async get(workspaceId: string, slug: string): Promise<DomainResponse> {
      return toDomainResponse(await getRow(workspaceId, slug));
    },

    /**
     * Updates settings, archives / un-archives, makes primary, or renames. A rename moves the
     * domain's links and rewrites their short links; both names are announced on the bus.
     */
    async update(workspaceId: string, slug: string, input: UpdateDomainBody, who?: Who): Promise<DomainResponse> {
      const existing = await getRow(workspaceId, slug);
      const renameTo = input.slug !== undefined && input.slug !== existing.slug ? input.slug : undefined;
      let verified = existing.verified;
      if (renameTo) {
        assertAllowed(renameTo);
        if (await store.findBySlugAnywhere(renameTo)) throw new ApiError('conflict', IN_USE);
        verified = (await verdict(renameTo)).verified ? 1 : 0;
      }
      const t = now();
      const patch: Partial<DomainRow> = {
        ...settingsPatch(input),
        ...(input.archived !== undefined ? { archived: input.archived ? 1 : 0 } : {}),
        ...(input.primary !== undefined ? { primary: input.primary ? 1 : 0 } : {}),
        ...(renameTo ? { slug: renameTo, verified } : {}),
        updated_at: t,
      };
      await guardInUse(() =>
        store.transaction(async (tx, trx) => {
          if (input.primary) await tx.clearPrimary(workspaceId, existing.id, t);
          await tx.update(workspaceId, existing.id, patch);
          if (renameTo) {
            const root = buildShortLink({ shortLinkProtocol: config.shortLinkProtocol }, renameTo, '_root');
            await tx.moveLinks(workspaceId, existing.slug, renameTo, root, t);
          }
          await record(trx, who, { workspaceId, action: 'domain.update', targetIds: existing.id, changes: { slug: existing.slug, fields: fieldsOf(input), ...(renameTo ? { renamedTo: renameTo } : {}) } });
        }),
      );
      bus.publish({ type: 'domain', domain: existing.slug });
      if (renameTo) bus.publish({ type: 'domain', domain: renameTo });
      return toDomainResponse({ ...existing, ...patch });
    },

    /** Deletes the domain, its links and their tag rows, and lowers the workspace's `totalLinks`. */
    async delete(workspaceId: string, slug: string, who?: Who): Promise<{ slug: string }> {
      const existing = await getRow(workspaceId, slug);
      await store.transaction(async (tx, trx) => {
        await tx.deleteLinks(workspaceId, existing.slug);
        await tx.delete(workspaceId, existing.id);
        await record(trx, who, { workspaceId, action: 'domain.delete', targetIds: existing.id, changes: { slug: existing.slug } });
      });
      bus.publish({ type: 'domain', domain: existing.slug });
      return { slug: existing.slug };
    },

    /**
     * For the operator's `waymark domains verify <slug>` (any workspace). In `dns` mode it checks
     * the records and stores the outcome; in `off` mode, or with `force`, it marks the domain verified.
     */
    async verifyDomain(rawSlug: string, options: { force?: boolean } = {}, who?: Who): Promise<DomainVerification> {
      const slug = normalizeDomainSlug(rawSlug);
      const row = await store.findBySlugAnywhere(slug);
      if (!row) throw notFound(slug);
      const result: DnsVerdict = options.force ? { verified: true, reason: 'Marked verified by the operator.' } : await verdict(slug);
      if ((row.verified === 1) !== result.verified) {
        await store.transaction(async (tx, trx) => {
          await tx.setVerified(row.id, result.verified, now());
          await record(trx, who, { workspaceId: row.workspace_id, action: 'domain.verify', targetIds: row.id, changes: { slug, verified: result.verified } });
        });
      }
      bus.publish({ type: 'domain', domain: slug });
      return { slug, workspaceId: row.workspace_id, ...result };
    },

    /**
     * Where each slug stands for an import that would add it, judged without writing: `owned`
     * (this workspace has it, archived or not), `taken` (another workspace has it), `refused`
     * (the rules of `create` refuse the slug) or `addable`. The slugs are given normalised.
     */
    async standingOf(workspaceId: string, slugs: readonly string[]): Promise<Map<string, DomainStanding>> {
      const owners = await store.ownersOf(slugs);
      const out = new Map<string, DomainStanding>();
      for (const slug of slugs) {
        const owner = owners.get(slug);
        out.set(slug, owner === workspaceId ? 'owned' : owner ? 'taken' : normalizeDomainSlug(slug) !== slug || domainSlugProblem(slug, reserved) ? 'refused' : 'addable');
      }
      return out;
    },

    /** How many domains the workspace has (archived included): what its `domainsLimit` counts. */
    countDomains: (workspaceId: string): Promise<number> => store.count(workspaceId),

    /** Slugs of the workspace's domains (archived included), oldest first. */
    listWorkspaceDomainSlugs: (workspaceId: string): Promise<string[]> => store.slugs(workspaceId),

    /** The workspace's domain with this slug, or undefined (also for another workspace's domain). */
    findDomain: (workspaceId: string, slug: string): Promise<DomainRow | undefined> => store.findBySlug(workspaceId, normalizeDomainSlug(slug)),

    /** Slug of the workspace's primary domain, if it has one (the default domain of new links). */
    async primaryDomainSlug(workspaceId: string): Promise<string | undefined> {
      return (await store.findPrimary(workspaceId))?.slug;
    },
  };
  return service;
}

export type DomainService = ReturnType<typeof createDomainService>;

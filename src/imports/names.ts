/**
 * The tags and domains an import creates, decided in three steps so that a rejected row creates
 * nothing and a dry run foresees exactly what the real run creates:
 *
 * 1. `creatableIn(items)`, per batch, before judging: which names the rows give are new and may
 *    be created (tags not in the workspace with a valid name; domains no workspace has and the
 *    domain rules allow). Another workspace's domain is not creatable, so the link rules answer
 *    its rows as `POST /links` does ("Domain does not belong to workspace"), whatever its keys.
 * 2. `quota`, per row, while judging: a row whose new names would pass the plan's tag or domain
 *    limit is refused with the plan's message; an accepted row's names count for the next rows.
 * 3. `create(accepted)`, real runs only, after judging: the names the accepted rows need, and
 *    nothing else.
 *
 * @example
 * const names = createImportNames(deps, workspace, { dryRun: false, tagsCreated: [], domainsCreated: [] });
 * const creatable = await names.creatableIn(items);
 * const judged = await links.judgeImport(caller, items, { seen, creatable, quota: names.quota });
 * const { tagIds, refusalOf } = await names.create(judged.filter(isAccepted));
 */
import { ApiError } from '../http/errors.js';
import type { DomainService } from '../domains/service.js';
import { CreateDomainBody } from '../domains/schema.js';
import type { AcceptedRow, ImportItem, ImportNeeds } from '../links/import-batch.js';
import { normaliseDomain } from '../links/keys.js';
import type { TagService } from '../tags/service.js';
import { CreateTagBody } from '../tags/schema.js';
import { slices } from '../time-slice.js';
import type { WorkspaceRow } from '../workspaces/store.js';
import { limitReachedMessage } from '../workspaces/quota.js';

export interface ImportNameDeps {
  tags: Pick<TagService, 'create' | 'findTagsByNames' | 'countTags'>;
  domains: Pick<DomainService, 'create' | 'standingOf' | 'countDomains'>;
  shortDomain: string;
}

export interface ImportNamesReport {
  dryRun: boolean;
  /** Filled in order: the names created (a dry run: the names that would be). */
  tagsCreated: string[];
  domainsCreated: string[];
}

export function createImportNames(deps: ImportNameDeps, ws: WorkspaceRow, report: ImportNamesReport) {
  /** The workspace's counts when the import began; the names accepted since count on top. */
  let counts: { tags: number; domains: number } | undefined;
  /** Names accepted rows need, in the order first met: tag spelling by lower-cased name, domain slugs. */
  const taken = { tags: new Map<string, string>(), domains: new Set<string>() };
  /** Real runs: what was created, and the refusals of names that could not be. */
  const made = { tagIds: new Map<string, string>(), domains: new Set<string>(), refused: new Map<string, ApiError>() };
  /** The first spelling of each tag name met in the file. */
  const spelling = new Map<string, string>();

  const tagLimit = () => new ApiError('forbidden', limitReachedMessage('tags', Number(ws.tags_limit), ws.plan));
  const domainLimit = () => new ApiError('forbidden', limitReachedMessage('domains', Number(ws.domains_limit), ws.plan));

  const quota = {
    refuse(needs: ImportNeeds): ApiError | undefined {
      const c = counts!;
      if (needs.domain && !taken.domains.has(needs.domain) && c.domains + taken.domains.size + 1 > Number(ws.domains_limit)) return domainLimit();
      const newTags = needs.tagNameKeys.filter((k) => !taken.tags.has(k)).length;
      if (newTags && c.tags + taken.tags.size + newTags > Number(ws.tags_limit)) return tagLimit();
      return undefined;
    },
    take(needs: ImportNeeds): void {
      if (needs.domain && !taken.domains.has(needs.domain)) {
        taken.domains.add(needs.domain);
        if (report.dryRun) report.domainsCreated.push(needs.domain);
      }
      for (const k of needs.tagNameKeys) {
        if (taken.tags.has(k)) continue;
        taken.tags.set(k, spelling.get(k) ?? k);
        if (report.dryRun) report.tagsCreated.push(spelling.get(k) ?? k);
      }
    },
  };

  return {
    quota,

    /** The names the items give that the import may create (nothing is written). */
    async creatableIn(items: readonly ImportItem[]): Promise<{ domains: Set<string>; tagNameKeys: Set<string> }> {
      counts ??= { tags: await deps.tags.countTags(ws.id), domains: await deps.domains.countDomains(ws.id) };
      const tagNames = new Map<string, string>();
      const slugs = new Set<string>();
      for (const { input } of items) {
        const { tagNames: names, domain } = input as { tagNames?: unknown; domain?: unknown };
        if (Array.isArray(names)) for (const n of names) if (typeof n === 'string' && !tagNames.has(n.toLowerCase())) tagNames.set(n.toLowerCase(), n);
        const slug = typeof domain === 'string' ? normaliseDomain(domain) : null;
        if (slug && slug !== deps.shortDomain) slugs.add(slug);
      }
      const known = new Set((await deps.tags.findTagsByNames(ws.id, [...tagNames.values()])).map((t) => t.name_key));
      const tagNameKeys = new Set<string>();
      for (const [key, name] of tagNames) {
        if (known.has(key) || !CreateTagBody.safeParse({ name }).success) continue;
        tagNameKeys.add(key);
        if (!spelling.has(key)) spelling.set(key, name);
      }
      const domains = new Set<string>();
      for (const [slug, standing] of await deps.domains.standingOf(ws.id, [...slugs])) if (standing === 'addable') domains.add(slug);
      return { domains, tagNameKeys };
    },

    /**
     * Creates the domains, then the tags, that the accepted rows need (a real run). A name that
     * cannot be created after all (another workspace took the domain, the limit was reached by a
     * concurrent write) refuses the rows that need it, with the reason.
     */
    async create(accepted: readonly AcceptedRow[]): Promise<{ tagIds: ReadonlyMap<string, string>; refusalOf(needs: ImportNeeds): ApiError | undefined }> {
      const refusalOf = (needs: ImportNeeds) =>
        (needs.domain ? made.refused.get(`domain:${needs.domain}`) : undefined) ?? needs.tagNameKeys.map((k) => made.refused.get(`tag:${k}`)).find(Boolean);
      for (const { needs } of accepted) {
        if (!needs.domain || made.domains.has(needs.domain) || made.refused.has(`domain:${needs.domain}`)) continue;
        await slices.pause();
        try {
          await deps.domains.create(ws, CreateDomainBody.parse({ slug: needs.domain }), { imported: true });
          made.domains.add(needs.domain);
          report.domainsCreated.push(needs.domain);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          made.refused.set(`domain:${needs.domain}`, err);
        }
      }
      for (const { needs } of accepted) {
        if (needs.domain && made.refused.has(`domain:${needs.domain}`)) continue;
        for (const key of needs.tagNameKeys) {
          if (made.tagIds.has(key) || made.refused.has(`tag:${key}`)) continue;
          await slices.pause();
          const name = taken.tags.get(key) ?? key;
          try {
            made.tagIds.set(key, (await deps.tags.create(ws, { name })).id);
            report.tagsCreated.push(name);
          } catch (err) {
            if (!(err instanceof ApiError)) throw err;
            // Created meanwhile by another request: the rows get that tag.
            const existing = err.code === 'conflict' ? (await deps.tags.findTagsByNames(ws.id, [name]))[0] : undefined;
            if (existing) made.tagIds.set(key, existing.id);
            else made.refused.set(`tag:${key}`, err);
          }
        }
      }
      return { tagIds: made.tagIds, refusalOf };
    },
  };
}

export type ImportNames = ReturnType<typeof createImportNames>;

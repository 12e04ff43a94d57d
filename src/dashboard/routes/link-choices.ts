/**
 * What the links pages offer to choose from: the workspace's domains (the default short domain
 * included), tags and folders, read through the API's services. And `callerOf`, the links
 * service's caller for a dashboard user.
 *
 * @example
 * const choices = linkChoices({ tags, folders, domains, shortDomain: config.shortDomain });
 * const { domains, tags, folders } = await choices.load(workspaceId);
 */
import type { WorkspacePage } from '../kit.js';
import type { Caller } from '../../links/service.js';
import type { TagsModule } from '../../tags/module.js';
import type { FoldersModule } from '../../folders/module.js';
import type { DomainsModule } from '../../domains/module.js';
import { ListTagsQuery } from '../../tags/schema.js';
import { ListFoldersQuery } from '../../folders/schema.js';

/** The dashboard user writes as the workspace; the link's `userId` records who. */
export function callerOf(page: WorkspacePage): Caller {
  return { workspaceId: page.workspace.id, workspace: page.workspace, userId: page.userId, who: page.who };
}

export interface LinkChoiceDeps {
  tags: TagsModule['service'];
  folders: FoldersModule['service'];
  domains: Pick<DomainsModule, 'listWorkspaceDomainSlugs' | 'primaryDomainSlug'>;
  shortDomain: string;
}

export function linkChoices(deps: LinkChoiceDeps) {
  return {
    /** Domains (the default one first), tags by name, folders (first pages of each). */
    async load(workspaceId: string): Promise<{ domains: string[]; tags: { id: string; name: string }[]; folders: { id: string; name: string }[] }> {
      const [slugs, primary, tags, folders] = await Promise.all([
        deps.domains.listWorkspaceDomainSlugs(workspaceId),
        deps.domains.primaryDomainSlug(workspaceId),
        deps.tags.list(workspaceId, ListTagsQuery.parse({})),
        deps.folders.list(workspaceId, ListFoldersQuery.parse({})),
      ]);
      // First the domain a link gets when none is named (the API's default: primary, else the short domain).
      const first = primary ?? deps.shortDomain;
      const domains = [first, ...[...slugs, deps.shortDomain].filter((s, i, all) => s !== first && all.indexOf(s) === i)];
      return { domains, tags: tags.map((t) => ({ id: t.id, name: t.name })), folders: folders.map((f) => ({ id: f.id, name: f.name })) };
    },
  };
}
export type LinkChoices = ReturnType<typeof linkChoices>;

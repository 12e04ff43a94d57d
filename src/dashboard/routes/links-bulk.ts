/**
 * Bulk actions of the links list on the selected links (checkboxes `sel_<linkId>`): archive,
 * unarchive, add a tag, move to a folder, delete. Each goes through the links service's bulk
 * operation, as `PATCH /links/bulk` and `DELETE /links/bulk` do, with the API's own body schema,
 * so limits (100 links) and rules (tags and folders of the workspace) are the API's.
 *
 * @example
 * await runBulk(links, caller, 'archive', ['link_1', 'link_2'], {});   // { op: 'archive', count: 2, failed: 0 }
 */
import { ApiError } from '../../http/errors.js';
import { BulkUpdateBody, type BulkUpdateData } from '../../links/schema.js';
import type { Caller, LinkService } from '../../links/service.js';
import { parseInput } from '../../users/schema.js';

export const BULK_OPS = ['archive', 'unarchive', 'tag', 'move', 'delete'] as const;
export type BulkOp = (typeof BULK_OPS)[number];

/** The ids of the ticked `sel_<id>` checkboxes. */
export function selectedIds(body: Record<string, string | undefined>): string[] {
  return Object.keys(body)
    .filter((k) => k.startsWith('sel_') && body[k])
    .map((k) => k.slice(4));
}

const isError = (r: object): boolean => 'error' in r && 'code' in r;

async function update(links: LinkService, caller: Caller, linkIds: string[], data: Record<string, unknown>) {
  const body = parseInput(BulkUpdateBody, { linkIds, data });
  const results = await links.bulkUpdate(caller, body as { linkIds: string[]; data: BulkUpdateData });
  const failed = results.filter(isError).length;
  return { count: results.length - failed, failed };
}

export async function runBulk(
  links: LinkService,
  caller: Caller,
  rawOp: string | undefined,
  ids: string[],
  options: { tagId?: string; folderId?: string },
): Promise<{ op: BulkOp; count: number; failed: number }> {
  const op = BULK_OPS.find((o) => o === rawOp);
  if (!op) throw new ApiError('unprocessable_entity', 'op: choose one of archive, unarchive, tag, move, delete.');
  if (!ids.length) throw new ApiError('unprocessable_entity', 'Select at least one link first.');
  switch (op) {
    case 'archive':
    case 'unarchive':
      return { op, ...(await update(links, caller, ids, { archived: op === 'archive' })) };
    case 'move':
      return { op, ...(await update(links, caller, ids, { folderId: options.folderId ?? '' })) };
    case 'delete': {
      const { deletedCount } = await links.bulkDelete(caller, ids);
      return { op, count: deletedCount, failed: ids.length - deletedCount };
    }
    case 'tag': {
      if (!options.tagId) throw new ApiError('unprocessable_entity', 'tagId: choose the tag to add.');
      if (ids.length > 100) return { op, ...(await update(links, caller, ids, {})) }; // the API's 422
      // A bulk update sets the whole tag list, so links are grouped by the list they end up with.
      const groups = new Map<string, string[]>();
      let failed = 0;
      for (const id of ids) {
        const link = await links.get(caller, id).catch((err: unknown) => {
          if (err instanceof ApiError && err.status === 404) return undefined;
          throw err;
        });
        if (!link) {
          failed++;
          continue;
        }
        const tagIds = [...new Set([...(link.tags ?? []).map((t) => t.id), options.tagId])].sort();
        const key = tagIds.join(',');
        groups.set(key, [...(groups.get(key) ?? []), id]);
      }
      let count = 0;
      for (const [key, group] of groups) {
        const r = await update(links, caller, group, { tagIds: key.split(',') });
        count += r.count;
        failed += r.failed;
      }
      return { op, count, failed };
    }
  }
}

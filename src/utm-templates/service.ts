/**
 * UTM template rules: values validated as a link's UTM fields (schema.ts), names unique per
 * workspace without regard to case, at most `MAX_UTM_TEMPLATES` a workspace. Another workspace's
 * template answers exactly like a missing one. Who may write is the caller's check (the
 * dashboard's `links.write`).
 *
 * @example
 * const t = await templates.create(workspaceId, { name: 'Newsletter', utm_source: 'newsletter' }, userId);
 * (await templates.get(workspaceId, t.id)).values.utm_source; // 'newsletter'
 */
import type { Dialect } from '../db/dialect.js';
import { ApiError } from '../http/errors.js';
import { record, type Who } from '../audit/record.js';
import { newId } from '../ids.js';
import { parseInput } from '../users/schema.js';
import { UTM_COLUMNS } from '../links/urls.js';
import { MAX_UTM_TEMPLATES, UtmTemplateBody, toUtmTemplate, type UtmTemplate, type UtmTemplateRow } from './schema.js';
import type { UtmTemplateStore } from './store.js';

const NOT_FOUND = 'UTM template not found.';

export function createUtmTemplateService(store: UtmTemplateStore, dialect: Dialect, now: () => number = Date.now) {
  const duplicate = (name: string, cause?: unknown) => new ApiError('conflict', `A UTM template named “${name}” already exists.`, { field: 'name', cause });

  return {
    list: async (workspaceId: string): Promise<UtmTemplate[]> => (await store.list(workspaceId, MAX_UTM_TEMPLATES)).map(toUtmTemplate),

    async get(workspaceId: string, id: string): Promise<UtmTemplate> {
      const row = await store.findById(workspaceId, id);
      if (!row) throw new ApiError('not_found', NOT_FOUND);
      return toUtmTemplate(row);
    },

    /** `body`: the form's fields, validated here (422 naming the field). */
    async create(workspaceId: string, body: unknown, userId: string | null, who?: Who): Promise<UtmTemplate> {
      const input = parseInput(UtmTemplateBody, body);
      const t = now();
      const row: UtmTemplateRow = {
        id: newId('utm', t),
        workspace_id: workspaceId,
        name: input.name,
        name_key: input.name.toLowerCase(),
        ...(Object.fromEntries(UTM_COLUMNS.map((c) => [c, input[c] ?? null])) as Pick<UtmTemplateRow, (typeof UTM_COLUMNS)[number]>),
        created_by: userId,
        created_at: t,
      };
      try {
        await store.transaction(async (tx) => {
          await tx.lockWorkspace(workspaceId);
          if (await tx.nameTaken(workspaceId, row.name_key)) throw duplicate(input.name);
          if ((await tx.count(workspaceId)) >= MAX_UTM_TEMPLATES) {
            throw new ApiError('forbidden', `A workspace keeps at most ${MAX_UTM_TEMPLATES} UTM templates: delete one first.`);
          }
          await tx.insert(row, (trx) => record(trx, who, { workspaceId, action: 'utm_template.create', targetIds: row.id, changes: { name: row.name } }));
        });
      } catch (err) {
        if (dialect.isUniqueViolation(err)) throw duplicate(input.name, err);
        throw err;
      }
      return toUtmTemplate(row);
    },

    async delete(workspaceId: string, id: string, who?: Who): Promise<void> {
      const noted = (trx: Parameters<typeof record>[0]) => record(trx, who, { workspaceId, action: 'utm_template.delete', targetIds: id });
      if (!(await store.delete(workspaceId, id, noted))) throw new ApiError('not_found', NOT_FOUND);
    },
  };
}

export type UtmTemplateService = ReturnType<typeof createUtmTemplateService>;

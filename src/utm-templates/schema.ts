/**
 * A UTM template: a named set of UTM values a workspace saves once and applies to new links
 * (the dashboard's settings tab and the link builder's picker). Values follow the link's own UTM
 * rule (`UtmValue`: trimmed, at most 190 characters, empty = none), so a template never holds what
 * a link would refuse.
 *
 * @example
 * const input = parseInput(UtmTemplateBody, { name: 'Newsletter', utm_source: 'newsletter', utm_medium: 'email' });
 */
import { z } from 'zod';
import { UtmValue } from '../links/schema.js';
import { UTM_COLUMNS, type UtmColumn } from '../links/urls.js';
import type { UtmTemplatesTable } from '../db/tables.js';

/** Templates a workspace may keep: a picker longer than this helps no one. */
export const MAX_UTM_TEMPLATES = 100;
export const MAX_TEMPLATE_NAME = 100;

export const UtmTemplateBody = z
  .object({
    name: z.string().trim().min(1, 'is required').max(MAX_TEMPLATE_NAME),
    utm_source: UtmValue,
    utm_medium: UtmValue,
    utm_campaign: UtmValue,
    utm_term: UtmValue,
    utm_content: UtmValue,
  })
  .refine((t) => UTM_COLUMNS.some((c) => t[c]), { message: 'needs at least one UTM value', path: ['utm'] });
export type UtmTemplateInput = z.infer<typeof UtmTemplateBody>;

export type UtmTemplateRow = UtmTemplatesTable;

export interface UtmTemplate {
  id: string;
  name: string;
  /** Every UTM column, `''` where the template sets none (applying it clears that field). */
  values: Record<UtmColumn, string>;
  createdAt: string;
}

export function toUtmTemplate(row: UtmTemplateRow): UtmTemplate {
  const values = Object.fromEntries(UTM_COLUMNS.map((c) => [c, row[c] ?? ''])) as Record<UtmColumn, string>;
  return { id: row.id, name: row.name, values, createdAt: new Date(row.created_at).toISOString() };
}

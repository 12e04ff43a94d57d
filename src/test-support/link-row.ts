/**
 * A complete `links` row for tests that insert links straight into the database (without the
 * links API): every NOT NULL column gets its default, `fields` override them.
 *
 * @example
 * await db.insertInto('links').values(linkRow({ id, workspace_id, domain: 'go.test', key: 'a', url }, Date.now())).execute();
 */
import type { Insertable } from 'kysely';
import type { LinksTable } from '../db/tables.js';

export type LinkRowFields = Partial<Insertable<LinksTable>> & { id: string; workspace_id: string; domain: string; key: string; url: string };

export function linkRow(fields: LinkRowFields, createdAt: number): Insertable<LinksTable> {
  return {
    key_lower: fields.key.toLowerCase(),
    short_link: `https://${fields.domain}${fields.key === '_root' ? '' : `/${fields.key}`}`,
    archived: 0,
    track_conversion: 0,
    proxy: 0,
    rewrite: 0,
    do_index: 0,
    public_stats: 0,
    public_stats_conversions: 0,
    clicks: 0,
    leads: 0,
    conversions: 0,
    sales: 0,
    sale_amount: 0,
    created_at: createdAt,
    updated_at: createdAt,
    ...fields,
  };
}

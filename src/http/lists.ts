/**
 * List inputs, each with a documented maximum: ids and names sent as `a,b`, as `["a","b"]` or as
 * a repeated query parameter. Without a cap a list of 40,000 tag ids reached SQLite's limit of
 * 32,766 bound variables and answered 500; with one, it is a 422 naming the field.
 *
 * @example
 * const Query = z.object({ tagIds: idList(MAX_LIST_ITEMS).optional() });
 * Query.parse({ tagIds: 'tag_1, tag_2' }); // { tagIds: ['tag_1', 'tag_2'] }
 */
import { z } from 'zod';

/** Items a list input takes unless its own limit is stated (tags per link, ids per filter). */
export const MAX_LIST_ITEMS = 100;

/** `a,b`, `["a","b"]` or a repeated parameter → trimmed, non-empty items, at most `max`. */
export function idList(max: number = MAX_LIST_ITEMS) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v) =>
      (Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .refine((items) => items.length <= max, { message: `At most ${max} items are accepted.` });
}

/** Values of one comma-separated filter (`a,b`, `-a,b`) beyond which a query is refused. */
export function commaSeparatedMax(max: number = MAX_LIST_ITEMS) {
  return (value: string) => value.split(',').length <= max;
}

/**
 * Compact text tables: how the MCP tools answer lists and analytics, so that an assistant reads
 * a hundred rows in a few kilobytes instead of the API's full JSON objects.
 *
 * @example
 * table([{ country: 'DE', clicks: 3 }], ['country', 'clicks']);
 * // country | clicks
 * // --- | ---
 * // DE | 3
 */

export type Row = Record<string, unknown>;

/** One cell's text: empty for null, JSON for objects, pipes and line breaks escaped. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n|\r/g, ' ');
}

/** A pipe table of `rows` with `columns` (default: every key that holds a scalar, in first-seen order). */
export function table(rows: readonly Row[], columns: readonly string[] = scalarColumns(rows)): string {
  if (rows.length === 0) return '(no rows)';
  const lines = [columns.join(' | '), columns.map(() => '---').join(' | ')];
  for (const row of rows) lines.push(columns.map((c) => cellText(row[c])).join(' | '));
  return lines.join('\n');
}

/** Keys whose values are scalars in at least one row, in first-seen order (nested objects are left out). */
export function scalarColumns(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      if (value === null || typeof value !== 'object') seen.add(key);
    }
  }
  return [...seen];
}

/**
 * Compiled SQL texts kept by a key the caller chooses (a table and a chunk size, say), so a
 * statement built with Kysely is compiled once per shape, not on every call. On SQLite each text
 * is then also prepared once, by db/statement-cache.ts. Keep one map per writer, so per engine.
 *
 * @example
 * const texts: SqlTexts = new Map();
 * const text = sqlText(texts, `links:${rows.length}`, () => buildUpdate(rows).compile(db).sql);
 * await db.executeQuery(CompiledQuery.raw(text, values));
 */
export type SqlTexts = Map<string, string>;

/** The text kept under `key`, compiled by `compile` the first time. */
export function sqlText(texts: SqlTexts, key: string, compile: () => string): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = compile();
    texts.set(key, text);
  }
  return text;
}

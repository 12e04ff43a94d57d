/**
 * A columnar click batch (../batch/click-columns.ts) into DuckDB's `events` table as data chunks,
 * without a row object or a native call per value: each text column of the wide row goes in as an
 * ENUM vector whose members are the batch's own distinct values of that column (from its
 * dictionaries), filled by one copy of the rows' member codes per 2,048 rows; DuckDB's appender
 * casts it to the table's VARCHAR. Integers are copied the same way; a column null for every
 * click is one validity mask; only the click id (unique per row) is set row by row, twice (`id`
 * and `click_id`). The Appender's value-by-value road cost about 37 native calls a row
 * (row-appender.ts; bench/redirect-cpu/README.md has the comparison).
 *
 * @example
 * const appender = await writer.createAppender('events');
 * appendClickChunks(appender, clicks, workspaceKeys, 7); // inside the writer's transaction
 * appender.flushSync(); appender.closeSync();
 */
import duckdb from '@duckdb/node-bindings';
import { DuckDBDataChunk, type DuckDBAppender } from '@duckdb/node-api';
import { EVENT_COLUMNS, INTEGER_COLUMNS } from '../column/column-engine.js';
import { clickIdAt, INDEX_COLUMNS, type ClickColumns, type ClickDictionaries, type IndexColumn } from '../batch/click-columns.js';

/** Rows per data chunk: DuckDB's vector size. */
const CHUNK_ROWS = duckdb.vector_size();

/** Where a text column of a click's wide row comes from: an index column and the field of its dictionary's entries. */
type TextSource = { index: IndexColumn; value: (d: ClickDictionaries, entry: number) => string | null };

const field = <K extends keyof ClickDictionaries>(index: IndexColumn, dict: K, pick: (e: ClickDictionaries[K][number]) => string | null): TextSource => ({
  index,
  value: (d, entry) => pick((d[dict] as ClickDictionaries[K][number][])[entry]!),
});

/** The text columns a click has, by the dictionary that holds them; every other text column is null for a click. */
const TEXT_SOURCES: Readonly<Record<string, TextSource>> = {
  workspace_id: field('link', 'links', (e) => e.workspace_id),
  link_id: field('link', 'links', (e) => e.link_id),
  domain: field('link', 'links', (e) => e.domain),
  key: field('link', 'links', (e) => e.key),
  url: field('url', 'urls', (e) => e.url),
  utm_source: field('url', 'urls', (e) => e.utm_source),
  utm_medium: field('url', 'urls', (e) => e.utm_medium),
  utm_campaign: field('url', 'urls', (e) => e.utm_campaign),
  utm_term: field('url', 'urls', (e) => e.utm_term),
  utm_content: field('url', 'urls', (e) => e.utm_content),
  ua: field('agent', 'agents', (e) => e.ua),
  device: field('agent', 'agents', (e) => e.device),
  browser: field('agent', 'agents', (e) => e.browser),
  os: field('agent', 'agents', (e) => e.os),
  referer: field('referer', 'referers', (e) => e.referer),
  referer_url: field('referer', 'referers', (e) => e.referer_url),
  country: field('place', 'places', (e) => e.country),
  city: field('place', 'places', (e) => e.city),
  region: field('place', 'places', (e) => e.region),
  continent: field('place', 'places', (e) => e.continent),
  ip: field('address', 'addresses', (e) => e),
  trigger: field('trigger', 'triggers', (e) => e),
};

/**
 * One text column of the batch as ENUM codes (pure): its distinct non-null values (the members,
 * in first-seen order) and, per dictionary entry, its value's code, -1 for null.
 */
export function enumColumn(values: readonly (string | null)[]): { members: string[]; codeOf: Int32Array } {
  const members: string[] = [];
  const seen = new Map<string, number>();
  const codeOf = new Int32Array(values.length);
  values.forEach((v, entry) => {
    if (v === null) {
      codeOf[entry] = -1;
      return;
    }
    let code = seen.get(v);
    if (code === undefined) {
      code = members.push(v) - 1;
      seen.set(v, code);
    }
    codeOf[entry] = code;
  });
  return { members, codeOf };
}

/** DuckDB keeps an ENUM's codes in the narrowest unsigned integer that holds them (its `EnumType` rule). */
export function codeArrayFor(memberCount: number, length: number): Uint8Array | Uint16Array | Uint32Array {
  if (memberCount <= 0xff) return new Uint8Array(length);
  if (memberCount <= 0xffff) return new Uint16Array(length);
  return new Uint32Array(length);
}

type Filler = (chunk: duckdb.DataChunk, column: number, from: number, n: number) => void;

/** Fills a vector's validity from `valid(i)` for rows [from, from + n): a bit per row, set when the value is there. */
function setValidity(vector: duckdb.Vector, from: number, n: number, valid: (row: number) => boolean): void {
  const mask = new Uint8Array(Math.ceil(n / 64) * 8);
  for (let j = 0; j < n; j++) if (valid(from + j)) mask[j >> 3]! |= 1 << (j & 7);
  duckdb.vector_ensure_validity_writable(vector);
  duckdb.copy_data_to_vector_validity(vector, 0, mask.buffer, 0, mask.byteLength);
}

const copy = (vector: duckdb.Vector, data: ArrayBufferView): void => duckdb.copy_data_to_vector(vector, 0, data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);

const BIGINT = duckdb.create_logical_type(duckdb.Type.BIGINT);
const VARCHAR = duckdb.create_logical_type(duckdb.Type.VARCHAR);

/** Each table column's type in the chunk and how a chunk's rows of it are filled. */
function plan(c: ClickColumns, workspaceKeys: ReadonlyMap<string, bigint>, batch: bigint): { types: duckdb.LogicalType[]; fill: Filler[] } {
  const types: duckdb.LogicalType[] = [];
  const fill: Filler[] = [];
  const nulls: Filler = (chunk, column, from, n) => setValidity(duckdb.data_chunk_get_vector(chunk, column), from, n, () => false);
  const bigints = (value: (row: number) => bigint): Filler => (chunk, column, from, n) => {
    const data = new BigInt64Array(n);
    for (let j = 0; j < n; j++) data[j] = value(from + j);
    copy(duckdb.data_chunk_get_vector(chunk, column), data);
  };
  for (const column of EVENT_COLUMNS) {
    const source = TEXT_SOURCES[column];
    if (column === 'timestamp') {
      types.push(BIGINT);
      fill.push(bigints((i) => BigInt(Math.trunc(c.time[i]!))));
    } else if (column === 'amount') {
      types.push(BIGINT);
      fill.push(bigints(() => 0n));
    } else if (column === 'id' || column === 'click_id') {
      types.push(VARCHAR);
      fill.push((chunk, col, from, n) => {
        const vector = duckdb.data_chunk_get_vector(chunk, col);
        for (let j = 0; j < n; j++) duckdb.vector_assign_string_element(vector, j, clickIdAt(c, from + j));
      });
    } else if (column === 'kind') {
      types.push(duckdb.create_enum_type(['click']));
      fill.push((chunk, col, _from, n) => copy(duckdb.data_chunk_get_vector(chunk, col), new Uint8Array(n)));
    } else if (source) {
      const dict = c.dictionaries[INDEX_COLUMNS[source.index]];
      const { members, codeOf } = enumColumn(Array.from({ length: dict.length }, (_, entry) => source.value(c.dictionaries, entry)));
      const rows = c[source.index];
      if (!members.length) {
        types.push(VARCHAR);
        fill.push(nulls);
        continue;
      }
      types.push(duckdb.create_enum_type(members));
      const anyNull = codeOf.some((code) => code < 0);
      fill.push((chunk, col, from, n) => {
        const codes = codeArrayFor(members.length, n);
        for (let j = 0; j < n; j++) codes[j] = Math.max(0, codeOf[rows[from + j]!]!);
        const vector = duckdb.data_chunk_get_vector(chunk, col);
        copy(vector, codes);
        if (anyNull) setValidity(vector, from, n, (i) => codeOf[rows[i]!]! >= 0);
      });
    } else {
      types.push(INTEGER_COLUMNS.has(column) ? BIGINT : VARCHAR);
      fill.push(nulls);
    }
  }
  // The workspace key, from each row's link; then the click batch.
  const keyOfLink = c.dictionaries.links.map((l) => {
    const key = workspaceKeys.get(l.workspace_id);
    if (key === undefined) throw new Error(`no workspace key for ${l.workspace_id}`);
    return key;
  });
  types.push(BIGINT);
  fill.push(bigints((i) => keyOfLink[c.link[i]!]!));
  types.push(BIGINT);
  fill.push(bigints(() => batch));
  return { types, fill };
}

/**
 * Appends the batch's clicks to `appender` (on `events`), as wide rows in table order: the
 * columns of `EventRow`, the workspace key (`workspaceKeys`, by workspace id: every workspace of
 * the batch's links must be there) and the number of the click batch.
 */
export function appendClickChunks(appender: DuckDBAppender, c: ClickColumns, workspaceKeys: ReadonlyMap<string, bigint>, batch: number): void {
  if (!c.length) return;
  const { types, fill } = plan(c, workspaceKeys, BigInt(batch));
  for (let from = 0; from < c.length; from += CHUNK_ROWS) {
    const n = Math.min(CHUNK_ROWS, c.length - from);
    const chunk = duckdb.create_data_chunk(types);
    for (let column = 0; column < fill.length; column++) fill[column]!(chunk, column, from, n);
    duckdb.data_chunk_set_size(chunk, n);
    appender.appendDataChunk(new DuckDBDataChunk(chunk));
  }
}

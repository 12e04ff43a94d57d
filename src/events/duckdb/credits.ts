/**
 * The attribution credits' copy in the DuckDB event file (docs/decisions/0018): a `credits` table
 * with the columns of the metadata database's (migration 0037), so analytics with a model read
 * it beside `events` instead of crossing to SQLite. The metadata database stays the source: what
 * changed there is copied here by column/credit-copies.ts, a sale's rows replaced in one
 * transaction, so a copy done twice leaves the same rows.
 *
 * No index, as `events` (schema.ts says why): a sale's rows are found by a scan bounded by their
 * time when the caller knows it (rows arrive in about time order, so zone maps on `timestamp`
 * skip the rest).
 *
 * @example
 * for (const statement of creditTableStatements()) await writer.run(statement);
 * const credits = createDuckDbCredits({ writer, writing, transaction });
 * await credits.replace({ saleIds: ['evt_1'], span: { from: t, to: t } }, rows);
 */
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { StoredCredit } from '../event-store.js';
import type { ColumnCredits, CreditTarget } from '../column/column-engine.js';
import type { ColumnParam } from '../column/dialect.js';
import { quoteIdent } from '../column/dialect.js';
import { CREDIT_COLUMNS } from '../sql/credits.js';
import { bindings, withAppender } from './connections.js';

const INTEGER: ReadonlySet<string> = new Set(['timestamp', 'cents']);
const NOT_NULL: ReadonlySet<string> = new Set(['workspace_id', 'model', 'timestamp', 'sale_id', 'click_id', 'sale_link_id', 'link_id', 'share', 'cents']);
const typeOf = (c: string): string => (c === 'share' ? 'DOUBLE' : INTEGER.has(c) ? 'BIGINT' : 'VARCHAR');

/** Creates the table when missing (schema.ts `tableStatements` runs it with the others). */
export function creditTableStatements(): string[] {
  const columns = CREDIT_COLUMNS.map((c) => `${quoteIdent(c)} ${typeOf(c)}${NOT_NULL.has(c) ? ' NOT NULL' : ''}`).join(', ');
  return [`CREATE TABLE IF NOT EXISTS credits (${columns})`];
}

function appendRows(appender: DuckDBAppender, rows: readonly StoredCredit[]): void {
  for (const row of rows) {
    const r = row as unknown as Record<string, unknown>;
    for (const c of CREDIT_COLUMNS) {
      const v = r[c];
      if (v == null) appender.appendNull();
      else if (c === 'share') appender.appendDouble(Number(v));
      else if (INTEGER.has(c)) appender.appendBigInt(BigInt(Math.trunc(Number(v))));
      else appender.appendVarchar(String(v));
    }
    appender.endRow();
  }
}

export interface DuckDbCreditsDeps {
  writer: DuckDBConnection;
  /** The engine's writer queue (connections.ts `writerQueue`). */
  writing<T>(fn: () => Promise<T>): Promise<T>;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
}

export function createDuckDbCredits({ writer, writing, transaction }: DuckDbCreditsDeps): ColumnCredits {
  async function run(text: string, params: readonly ColumnParam[]): Promise<number> {
    const { values, types } = bindings(params);
    return (await writer.run(text, values, types)).rowsChanged;
  }
  function where(target: CreditTarget): { text: string; params: ColumnParam[] } {
    if ('workspaceId' in target) return { text: 'workspace_id = $1::VARCHAR', params: [{ type: 'text', value: target.workspaceId }] };
    const params: ColumnParam[] = [{ type: 'texts', value: target.saleIds }];
    let text = 'sale_id IN (SELECT unnest($1::VARCHAR[]))';
    if (target.span) {
      params.push({ type: 'int', value: target.span.from }, { type: 'int', value: target.span.to });
      text += ' AND "timestamp" >= $2::BIGINT AND "timestamp" <= $3::BIGINT';
    }
    return { text, params };
  }
  return {
    replace(target, rows) {
      if ('saleIds' in target && !target.saleIds.length && !rows.length) return Promise.resolve();
      return writing(() =>
        transaction(async () => {
          const w = where(target);
          await run(`DELETE FROM credits WHERE ${w.text}`, w.params);
          if (!rows.length) return;
          await withAppender(writer, 'credits', (appender) => appendRows(appender, rows));
        }),
      );
    },
    expire: (before) => writing(() => run('DELETE FROM credits WHERE "timestamp" < $1::BIGINT', [{ type: 'int', value: before }])),
  };
}

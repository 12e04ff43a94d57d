/**
 * An executor (executor.ts) on chdb, ClickHouse embedded in the Node process: the contract
 * tests and benchmarks run the ClickHouse engine's real SQL with it, no server needed. chdb is a
 * development dependency only: it is imported here dynamically, and nothing the server starts
 * imports this file.
 *
 * @example
 * const executor = await openChdbExecutor();           // a temporary folder, removed at close
 * const engine = await openClickHouseEngine({ executor });
 */
import type { ClickHouseExecutor } from './executor.js';

export interface ChdbExecutorOptions {
  /** A folder for the data (kept); default a temporary one, removed at close. */
  path?: string;
}

export async function openChdbExecutor(options: ChdbExecutorOptions = {}): Promise<ClickHouseExecutor> {
  const { Session } = await import('chdb');
  const session = options.path ? new Session(options.path) : new Session();
  // chdb takes no settings per call: they go into the statement's SETTINGS clause.
  const withSettings = (sql: string, settings?: Record<string, string | number>) => {
    const entries = Object.entries(settings ?? {});
    if (!entries.length) return sql;
    return `${sql} SETTINGS ${entries.map(([k, v]) => `${k} = ${typeof v === 'number' ? Math.trunc(v) : `'${String(v).replace(/[\\']/g, '\\$&')}'`}`).join(', ')}`;
  };
  return {
    async query(sql, params, settings) {
      const result = await session.queryBindAsync(withSettings(sql, settings), params ?? {}, { format: 'JSONEachRow' });
      const text = result.text();
      return text ? text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) : [];
    },
    async command(sql, params, settings) {
      await session.queryBindAsync(withSettings(sql, settings), params ?? {}, { format: 'JSONEachRow' });
    },
    async insert(table, columns, rows, settings) {
      if (!rows.length) return;
      const payload = Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n'));
      await session.insert({ table, columns, values: payload, format: 'JSONCompactEachRow', ...(settings ? { settings } : {}) });
    },
    async close() {
      session.close();
    },
  };
}

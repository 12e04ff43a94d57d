/**
 * Opens a DuckDB event file outside the log (the backup command), loading DuckDB only then: the
 * door (events/index.ts) is imported by every process, whatever store `EVENTS_URL` selects.
 *
 * @example
 * const engine = await openDuckDbFile({ path: 'data/waymark.events.duckdb' });
 */
import type { DuckDbEngine, DuckDbEngineOptions } from './duckdb-engine.js';

export async function openDuckDbFile(options: DuckDbEngineOptions): Promise<DuckDbEngine> {
  const { openDuckDbEngine } = await import('./duckdb-engine.js');
  return openDuckDbEngine(options);
}

/**
 * What DuckDB says it holds (`duckdb_memory()`: its buffer manager's memory by tag, and what it
 * spilled to temporary files) against its `memory_limit`: the event store's share of a process's
 * memory, for the memory report of the log thread (events/log/protocol.ts `memory`) and the flood
 * benchmark (bench/redirect-flood/README.md).
 *
 * @example
 * const m = await readDuckDbMemory(connection); // { limit: '488.2 MiB', usedBytes: 41943040, … }
 */
import type { DuckDBConnection } from '@duckdb/node-api';

export interface DuckDbMemory {
  /** `current_setting('memory_limit')` as DuckDB prints it. */
  limit: string;
  /** Sum of `memory_usage_bytes` over the tags. */
  usedBytes: number;
  /** Sum of `temporary_storage_bytes`: spilled to disk, not in memory. */
  temporaryBytes: number;
  /** `memory_usage_bytes` per tag (BASE_TABLE, ART_INDEX, HASH_TABLE, …), the tags that hold any. */
  byTag: Record<string, number>;
}

export async function readDuckDbMemory(connection: DuckDBConnection): Promise<DuckDbMemory> {
  const tags = (await connection.runAndReadAll('SELECT tag, memory_usage_bytes AS used, temporary_storage_bytes AS temporary FROM duckdb_memory()')).getRowObjectsJS();
  const [setting] = (await connection.runAndReadAll("SELECT current_setting('memory_limit') AS m")).getRowObjectsJS();
  const byTag: Record<string, number> = {};
  let usedBytes = 0;
  let temporaryBytes = 0;
  for (const t of tags) {
    const used = Number(t.used);
    usedBytes += used;
    temporaryBytes += Number(t.temporary);
    if (used > 0) byTag[String(t.tag)] = used;
  }
  return { limit: String(setting?.m), usedBytes, temporaryBytes, byTag };
}

/**
 * The DuckDB event file's connections: a few readers that reads wait their turn for, each keeping
 * its prepared statements, and one writer whose writes run one after another, each its own
 * transaction (duckdb-engine.ts); and `withAppender`, an Appender's fill, flush and close inside
 * the writer's transaction (the events' and the credits' appends).
 *
 * @example
 * const readers = await openReaders(instance, 2);
 * const rows = await readers.withReader((c) => readers.readPrepared(c, { text: 'SELECT 1', params: [] }));
 */
import {
  BIGINT, DuckDBConnection, JSDuckDBValueConverter, LIST, VARCHAR, listValue,
  type DuckDBAppender, type DuckDBInstance, type DuckDBMaterializedResult, type DuckDBPreparedStatement, type DuckDBType, type DuckDBValue,
} from '@duckdb/node-api';
import { setImmediate as turn } from 'node:timers/promises';
import type { ColumnParam, ColumnQuery } from '../column/dialect.js';
import type { DiskRoom } from './disk-room.js';

/** Prepared statements a reader connection keeps (all are dropped when it would hold more). */
const PREPARED_PER_CONNECTION = 256;

export function bindings(params: readonly ColumnParam[]): { values: DuckDBValue[]; types: DuckDBType[] } {
  const values: DuckDBValue[] = [];
  const types: DuckDBType[] = [];
  for (const p of params) {
    if (p.type === 'text') {
      values.push(p.value);
      types.push(VARCHAR);
    } else if (p.type === 'int') {
      values.push(BigInt(Math.trunc(p.value)));
      types.push(BIGINT);
    } else {
      values.push(listValue([...p.value]));
      types.push(LIST(VARCHAR));
    }
  }
  return { values, types };
}

/** Longest a result's conversion holds this thread's loop before letting other work in (ms). */
const CONVERT_SLICE_MS = 4;
/** Rows converted between looks at the clock. */
const ROWS_PER_LOOK = 128;

/**
 * A result as row objects, as `getRowObjectsJS` makes them, but letting the loop turn every few
 * milliseconds: the log thread's appends continue on this loop (each DuckDB call comes back
 * through it), and a large result converted in one go held them for tens of milliseconds, past
 * the lag bound under a mixed load (bench/mixed-load/README.md).
 */
export async function rowObjects(result: DuckDBMaterializedResult): Promise<Record<string, unknown>[]> {
  const names = result.deduplicatedColumnNames();
  const out: Record<string, unknown>[] = [];
  let since = performance.now();
  const chunks = result.chunkCount;
  for (let i = 0; i < chunks; i++) {
    const chunk = result.getChunk(i);
    const count = chunk.rowCount;
    for (let r = 0; r < count; r++) {
      const row: Record<string, unknown> = {};
      chunk.visitRowValues(r, (value, _row, column, type) => {
        row[names[column]!] = JSDuckDBValueConverter(value, type, JSDuckDBValueConverter);
      });
      out.push(row);
      if (r % ROWS_PER_LOOK === ROWS_PER_LOOK - 1 && performance.now() - since >= CONVERT_SLICE_MS) {
        await turn();
        since = performance.now();
      }
    }
  }
  return out;
}

/** One query on one connection, prepared anew. */
export async function read(connection: DuckDBConnection, q: ColumnQuery): Promise<Record<string, unknown>[]> {
  const { values, types } = bindings(q.params);
  return rowObjects(await connection.run(q.text, values, types));
}

export async function openReaders(instance: DuckDBInstance, count: number) {
  // A connection runs one statement at a time: reads take one of a few, waiting for a free one.
  const readers = await Promise.all(Array.from({ length: Math.max(1, count) }, () => DuckDBConnection.create(instance)));
  const idle = [...readers];
  const waiting: ((c: DuckDBConnection) => void)[] = [];
  let closing = false;
  // Reader connections keep their prepared statements by SQL text: preparing (parse, bind, plan)
  // took about 1 ms of a 3 ms grouping for a small workspace (BENCHMARKS.md). Query texts repeat:
  // values are parameters, lists one list parameter. Not on the writer, whose statements name
  // temporary tables that come and go.
  const prepared = new Map<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();
  return {
    async withReader<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
      if (closing) throw new Error('the DuckDB event store is closed');
      const c = idle.pop() ?? (await new Promise<DuckDBConnection>((resolve) => waiting.push(resolve)));
      try {
        return await fn(c);
      } finally {
        const next = waiting.shift();
        if (next) next(c);
        else idle.push(c);
      }
    },
    async readPrepared(connection: DuckDBConnection, q: ColumnQuery): Promise<Record<string, unknown>[]> {
      let statements = prepared.get(connection);
      if (!statements) prepared.set(connection, (statements = new Map()));
      let statement = statements.get(q.text);
      if (!statement) {
        statement = await connection.prepare(q.text);
        if (statements.size >= PREPARED_PER_CONNECTION) {
          for (const s of statements.values()) s.destroySync();
          statements.clear();
        }
        statements.set(q.text, statement);
      }
      const { values, types } = bindings(q.params);
      statement.bind(values, types);
      return rowObjects(await statement.run());
    },
    /**
     * Refuses new reads and waits for those in flight: a connection closed while it runs a query
     * deadlocks DuckDB (the query releases the connection's last reference while holding its
     * lock), and the process's exit then waits on that thread forever.
     */
    async drain(): Promise<void> {
      closing = true;
      while (idle.length < readers.length) {
        await new Promise<void>((resolve) =>
          waiting.push((c) => {
            idle.push(c);
            resolve();
          }),
        );
      }
    },
    closeSync(): void {
      for (const statements of prepared.values()) for (const s of statements.values()) s.destroySync();
      for (const c of readers) c.closeSync();
    },
  };
}

export type Readers = Awaited<ReturnType<typeof openReaders>>;

/** The writer's queue: writes one after another, each refused (ENOSPC) before DuckDB sees it when the volume is full. */
export function writerQueue(writer: DuckDBConnection, room: Pick<DiskRoom, 'before'>) {
  let queue: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn, fn);
    queue = run.catch(() => undefined);
    return run;
  }
  return {
    exclusive,
    /** `exclusive` for a write (disk-room.ts: a checkpoint that fails for room invalidates the instance). */
    writing<T>(fn: () => Promise<T>): Promise<T> {
      return exclusive(async () => {
        await room.before();
        return fn();
      });
    },
    async transaction<T>(fn: () => Promise<T>): Promise<T> {
      await writer.run('BEGIN TRANSACTION');
      try {
        const out = await fn();
        await writer.run('COMMIT');
        return out;
      } catch (err) {
        await writer.run('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
  };
}

/**
 * Fills an Appender on `table` with `fill`, flushes and closes it, inside the caller's open
 * transaction on `connection`.
 */
export async function withAppender(connection: DuckDBConnection, table: string, fill: (appender: DuckDBAppender) => void): Promise<void> {
  const appender = await connection.createAppender(table);
  // The first failure is the one to report: closing after a refused flush fails again, on the
  // aborted transaction.
  let failure: unknown;
  try {
    fill(appender);
    appender.flushSync();
  } catch (err) {
    failure = err;
  }
  try {
    appender.closeSync();
  } catch (err) {
    failure ??= err;
  }
  if (failure) throw failure;
}

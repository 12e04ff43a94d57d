/**
 * Export bodies as streams with backpressure: records are pulled from their source only as fast
 * as the client reads (Readable.from over an async iterator pulls on demand, and csv-stringify
 * propagates the demand), so memory holds about one page whatever the export's size.
 *
 * @example
 * reply.type('text/csv').send(csvStream(['id', 'url'], pages, (l) => [l.id, l.url]));
 */
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { stringify } from 'csv-stringify';

/** A CSV with a header row, one row per record of the pages. */
export function csvStream<T>(columns: readonly string[], pages: AsyncIterable<readonly T[]> | Iterable<readonly T[]>, toRow: (record: T) => string[]): Readable {
  const rows = Readable.from(
    (async function* () {
      yield [...columns];
      for await (const page of pages) for (const r of page) yield toRow(r);
    })(),
    { objectMode: true, highWaterMark: 256 },
  );
  const out = stringify();
  return joined(rows, out);
}

/** One JSON document a line. */
export function ndjsonStream<T>(pages: AsyncIterable<readonly T[]> | Iterable<readonly T[]>): Readable {
  const lines = Readable.from(
    (async function* () {
      for await (const page of pages) for (const r of page) yield r;
    })(),
    { objectMode: true, highWaterMark: 256 },
  );
  const out = new Transform({
    writableObjectMode: true,
    transform(record: unknown, _enc: BufferEncoding, done: TransformCallback) {
      done(null, `${JSON.stringify(record)}\n`);
    },
  });
  return joined(lines, out);
}

/**
 * `source.pipe(out)`, and the two fail and end together: a read error ends the response, and a
 * client that goes away (the response destroys `out`) stops the reads.
 */
function joined(source: Readable, out: Transform): Transform {
  source.on('error', (err) => out.destroy(err));
  out.on('close', () => {
    if (!source.destroyed) source.destroy();
  });
  return source.pipe(out);
}

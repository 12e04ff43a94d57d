/**
 * Export bodies as streams with backpressure: records are pulled from their source only as fast
 * as the client reads (Readable.from over an async iterator pulls on demand), so memory holds
 * about one page whatever the export's size.
 *
 * Two bounds keep one export from costing the others:
 * - memory: the text buffered ahead of the client is `BYTES_AHEAD` and a slice of rows, so a
 *   client that reads slowly holds a page and a few kilobytes, not megabytes;
 * - time: a fast client pulls rows as fast as they are built, and stream hand-offs are
 *   microtasks, not turns of the event loop, so on the thread that also answers redirects one
 *   export would hold the loop from its first row to its last. Rows are built in slices of at
 *   most `SLICE_ROWS`, and the walk hands the loop back once it has worked `SLICE_MS` in one go.
 *
 * Every CSV cell, header included, goes through `cellOf` (cells.ts): text is neutralised for
 * spreadsheets here, once, for every writer.
 *
 * @example
 * reply.type('text/csv').send(csvStream(['id', 'url'], pages, (l) => [l.id, l.url]));
 */
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { stringify } from 'csv-stringify/sync';
import { cellOf } from './cells.js';

/** Bytes of text buffered ahead of the client. */
export const BYTES_AHEAD = 16 * 1024;
/** Rows turned into text at a time (one chunk of the body). */
export const SLICE_ROWS = 32;
/** Longest run of row building before the event loop gets a turn. */
export const SLICE_MS = 5;

/** The records of the pages in slices of at most `SLICE_ROWS`, handing the event loop back every `SLICE_MS`. */
export async function* slicesOf<T>(pages: AsyncIterable<readonly T[]> | Iterable<readonly T[]>): AsyncGenerator<readonly T[]> {
  let sliceStart = performance.now();
  for await (const page of pages) {
    for (let i = 0; i < page.length; i += SLICE_ROWS) {
      if (performance.now() - sliceStart >= SLICE_MS) {
        await nextTurn();
        sliceStart = performance.now();
      }
      yield page.length <= SLICE_ROWS ? page : page.slice(i, i + SLICE_ROWS);
    }
  }
}

function textStream(chunks: AsyncIterable<string>): Readable {
  return Readable.from(chunks, { objectMode: false, highWaterMark: BYTES_AHEAD });
}

/** A CSV (RFC 4180) with a header row, one row per record of the pages; `toRow` gives the values, `cellOf` makes the cells. */
export function csvStream<T>(columns: readonly string[], pages: AsyncIterable<readonly T[]> | Iterable<readonly T[]>, toRow: (record: T) => readonly unknown[]): Readable {
  return textStream(
    (async function* () {
      yield stringify([columns.map(cellOf)]);
      for await (const slice of slicesOf(pages)) yield stringify(slice.map((r) => toRow(r).map(cellOf)));
    })(),
  );
}

/** One JSON document a line. */
export function ndjsonStream<T>(pages: AsyncIterable<readonly T[]> | Iterable<readonly T[]>): Readable {
  return textStream(
    (async function* () {
      for await (const slice of slicesOf(pages)) {
        let text = '';
        for (const r of slice) text += `${JSON.stringify(r)}\n`;
        yield text;
      }
    })(),
  );
}

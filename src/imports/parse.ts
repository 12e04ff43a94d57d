/**
 * Streaming CSV reading for imports: records come out one at a time as the bytes arrive (the
 * consumer's pace pulls the source, so memory holds a record, not the file), each with the line
 * it ends on. A malformed file (an unclosed quote, a record over 64 KiB) is a 422 naming the line.
 * Chunks reach the parser 4 KiB at a time: it parses a chunk in one go and buffers every record
 * in it, so a chunk of many megabytes would hold the event loop and memory at once.
 *
 * @example
 * for await (const { record, line } of readCsvRows(createReadStream('links.csv'))) console.log(line, record);
 */
import { Readable } from 'node:stream';
import { parse, CsvError } from 'csv-parse';
import { ApiError } from '../http/errors.js';

/** The longest record accepted: a 32,000-character URL and the rest of a row fit. */
const MAX_RECORD_BYTES = 64 * 1024;
/** The most bytes handed to the parser at once: at most ~1,400 records (of empty rows), about a millisecond of parsing. */
const PIECE_BYTES = 4 * 1024;

async function* inPieces(source: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let at = 0; at < buf.length; at += PIECE_BYTES) yield buf.subarray(at, at + PIECE_BYTES);
  }
}

export async function* readCsvRows(source: Readable | AsyncIterable<Buffer | string>): AsyncGenerator<{ record: string[]; line: number }> {
  const parser = parse({
    bom: true,
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  const input = Readable.from(inPieces(source), { objectMode: false });
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { record, line: info.lines };
    }
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines;
      throw new ApiError('unprocessable_entity', `Malformed CSV${line ? ` at line ${line}` : ''}: ${err.message.replace(/^[A-Za-z_]+: /, '')}`);
    }
    throw err;
  } finally {
    input.unpipe(parser);
    if (!input.destroyed) input.destroy();
  }
}

/**
 * The largest upload an import reads. The import streams, so this bounds the time one request
 * may hold the writer, not memory: about two million rows of a typical export.
 */
import { ApiError } from '../http/errors.js';

export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

/** Passes the chunks through and fails with 413 once more than `max` bytes went by. */
export async function* capBytes(body: AsyncIterable<Buffer | string>, max = MAX_IMPORT_BYTES): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total > max) throw new ApiError('payload_too_large', `The file is larger than ${max / 1024 / 1024} MiB: split it and import the parts (re-importing a part skips what is already there).`);
    yield buf;
  }
}

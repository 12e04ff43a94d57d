/**
 * The content of one field of a `multipart/form-data` body, streamed as it arrives: the import
 * takes its CSV from a `file` field, and a file of any size must pass without being held whole.
 * Only what an upload form sends is understood (parts with a `Content-Disposition` naming the
 * field); other parts are skipped.
 *
 * @example
 * for await (const chunk of multipartField(req.raw, boundaryOf(req.headers['content-type'])!, 'file')) parser.write(chunk);
 */
import { ApiError } from '../http/errors.js';

/** The boundary of a multipart content type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Headers of a part are small; a part whose headers do not end within this is refused. */
const MAX_PART_HEADER_BYTES = 8 * 1024;

export async function* multipartField(body: AsyncIterable<Buffer | string>, boundary: string, field: string): AsyncGenerator<Buffer> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The body starts with `--boundary` (no CRLF before it); pretending one was there makes every delimiter alike.
  let buf: Buffer = Buffer.from('\r\n');
  let state: 'preamble' | 'headers' | 'content' | 'skip' | 'done' = 'preamble';
  let found = false;
  for await (const chunk of body) {
    buf = buf.length ? Buffer.concat([buf, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]) : typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (;;) {
      if (state === 'preamble' || state === 'skip' || state === 'content') {
        const at = buf.indexOf(delimiter);
        if (at < 0) {
          // Keep what could be the start of a delimiter split across chunks.
          const keep = Math.min(buf.length, delimiter.length - 1);
          if (state === 'content' && buf.length > keep) yield buf.subarray(0, buf.length - keep);
          buf = buf.subarray(buf.length - keep);
          break;
        }
        if (state === 'content' && at > 0) yield buf.subarray(0, at);
        if (state === 'content') {
          state = 'done';
          break;
        }
        buf = buf.subarray(at + delimiter.length);
        state = 'headers';
        continue;
      }
      // headers: `--` ends the body; else CRLF, header lines, blank line.
      if (buf.length < 2) break;
      if (buf[0] === 0x2d && buf[1] === 0x2d) {
        state = 'done';
        break;
      }
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_PART_HEADER_BYTES) throw new ApiError('bad_request', 'Malformed multipart body: a part header is too long.');
        break;
      }
      const headers = buf.subarray(0, end).toString('latin1');
      buf = buf.subarray(end + 4);
      const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(headers)?.[1];
      state = name === field ? 'content' : 'skip';
      if (state === 'content') found = true;
    }
    if (state === 'done') break;
  }
  if (!found) throw new ApiError('bad_request', `The multipart body has no "${field}" field: upload the CSV file as the field "${field}".`);
  if (state !== 'done') throw new ApiError('bad_request', 'Malformed multipart body: it ended inside the file.');
}

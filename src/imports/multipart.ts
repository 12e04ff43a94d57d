/**
 * `multipart/form-data` bodies read as they arrive: the parts in order, each part's content
 * streamed, so a file of any size passes without being held whole. The import takes its CSV from
 * a `file` part; the dashboard's upload reads the small fields before it (the CSRF token, the dry
 * run box) and then streams the file. Only what an upload form sends is understood (parts with a
 * `Content-Disposition` naming the field).
 *
 * @example
 * for await (const part of multipartParts(req.raw, boundaryOf(req.headers['content-type'])!)) {
 *   if (part.name === 'file') for await (const chunk of part.content) parser.write(chunk);
 *   else console.log(part.name, await part.text(1024));
 * }
 */
import { ApiError } from '../http/errors.js';

/** The boundary of a multipart content type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Headers of a part are small; a part whose headers do not end within this is refused. */
const MAX_PART_HEADER_BYTES = 8 * 1024;

export interface MultipartPart {
  name: string;
  filename?: string;
  /** The part's bytes as they arrive. Read it (or leave it) before asking for the next part. */
  content: AsyncGenerator<Buffer>;
  /** The content as text, refused past `maxBytes` (a form field). */
  text(maxBytes: number): Promise<string>;
}

/** The length of the longest end of `buf` that is a beginning of `delimiter` (0: none). */
function delimiterStartAtEnd(buf: Buffer, delimiter: Buffer): number {
  for (let k = Math.min(buf.length, delimiter.length - 1); k > 0; k--) {
    const at = buf.length - k;
    if (buf[at] === delimiter[0] && buf.subarray(at).equals(delimiter.subarray(0, k))) return k;
  }
  return 0;
}

const malformed = (why: string) => new ApiError('bad_request', `Malformed multipart body: ${why}.`);

/** The parts of the body in order; a part's unread content is skipped when the next is asked for. */
export async function* multipartParts(body: AsyncIterable<Buffer | string>, boundary: string): AsyncGenerator<MultipartPart> {
  const source = body[Symbol.asyncIterator]();
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The body starts with `--boundary` (no CRLF before it); pretending one was there makes every delimiter alike.
  let buf: Buffer = Buffer.from('\r\n');
  const more = async (): Promise<boolean> => {
    const next = await source.next();
    if (next.done) return false;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
    return true;
  };
  /** True once the delimiter that ends the current part (or the preamble) was consumed. */
  let atDelimiter = false;
  /** Yields the bytes before the next delimiter and consumes it; `partial` names what an early end cuts. */
  async function* untilDelimiter(partial: string): AsyncGenerator<Buffer> {
    for (;;) {
      const at = buf.indexOf(delimiter);
      if (at >= 0) {
        const before = buf.subarray(0, at);
        buf = buf.subarray(at + delimiter.length);
        atDelimiter = true;
        if (before.length) yield before;
        return;
      }
      // Keep what could be the start of a delimiter split across chunks (usually nothing, so the
      // next chunk is used as it comes, without a copy).
      const keep = delimiterStartAtEnd(buf, delimiter);
      if (buf.length > keep) yield buf.subarray(0, buf.length - keep);
      buf = buf.subarray(buf.length - keep);
      if (!(await more())) throw malformed(partial);
    }
  }

  try {
    await skip(untilDelimiter('no part found')); // the preamble
    for (;;) {
      // After a delimiter: `--` ends the body; else CRLF, header lines, blank line.
      while (buf.length < 2) if (!(await more())) throw malformed('it ended after a boundary');
      if (buf[0] === 0x2d && buf[1] === 0x2d) return;
      let end: number;
      while ((end = buf.indexOf('\r\n\r\n')) < 0) {
        if (buf.length > MAX_PART_HEADER_BYTES) throw malformed('a part header is too long');
        if (!(await more())) throw malformed('it ended inside a part header');
      }
      const headers = buf.subarray(0, end).toString('latin1');
      buf = buf.subarray(end + 4);
      const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? '';
      atDelimiter = false;
      const content = untilDelimiter('it ended inside a part');
      yield {
        name: /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? '',
        filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1],
        content,
        async text(maxBytes) {
          const parts: Buffer[] = [];
          let size = 0;
          for await (const chunk of content) {
            size += chunk.length;
            if (size > maxBytes) throw malformed(`a form field is longer than ${maxBytes} bytes`);
            parts.push(Buffer.from(chunk));
          }
          return Buffer.concat(parts).toString('utf8');
        },
      };
      // Whatever the reader left of the part (a reader that stopped early closed `content`).
      if (!atDelimiter) await skip(untilDelimiter('it ended inside a part'));
    }
  } finally {
    await source.return?.();
  }
}

async function skip(chunks: AsyncIterable<Buffer>): Promise<void> {
  for await (const chunk of chunks) void chunk;
}

/** The content of the first part named `field`, streamed; a 400 when the body has none. */
export async function* multipartField(body: AsyncIterable<Buffer | string>, boundary: string, field: string): AsyncGenerator<Buffer> {
  for await (const part of multipartParts(body, boundary)) {
    if (part.name !== field) continue;
    yield* part.content;
    return;
  }
  throw new ApiError('bad_request', `The multipart body has no "${field}" field: upload the CSV file as the field "${field}".`);
}

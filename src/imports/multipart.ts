/**
 * `multipart/form-data` bodies read as they arrive: the parts in order, each part's content
 * streamed, so a file of any size passes without being held whole. The import takes its CSV from
 * a `file` part; the dashboard's upload reads the small fields before it (the CSRF token, the dry
 * run box) and then streams the file. busboy does the parsing (the parser @fastify/multipart and multer use).
 * A part without a filename is a form field: accepted up to MAX_FIELD_BYTES, a 422 past it.
 *
 * @example
 * for await (const part of multipartParts(req.raw, boundaryOf(req.headers['content-type'])!)) {
 *   if (part.name === 'file') for await (const chunk of part.content) parser.write(chunk);
 *   else console.log(part.name, await part.text(1024));
 * }
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { ApiError } from '../http/errors.js';

/** The boundary of a multipart content type, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

/** A part sent without a `filename` is a form field, held in memory by busboy up to this. */
export const MAX_FIELD_BYTES = 64 * 1024;

export interface MultipartPart {
  name: string;
  filename?: string;
  /** True when busboy cut the part at a limit (a form field past MAX_FIELD_BYTES, a file past `maxFileBytes`). */
  truncated?: boolean;
  /**
   * The part's bytes as they arrive. Read it (or leave it) before asking for the next part. A part
   * cut at a limit never yields cut content: its content throws the limit's error instead.
   */
  content: AsyncGenerator<Buffer>;
  /** The content as text, refused past `maxBytes` (a form field). */
  text(maxBytes: number): Promise<string>;
}

export interface MultipartOptions {
  /** A file part longer than this is refused (413) rather than passed on cut. Default: no limit (the body's own cap applies). */
  maxFileBytes?: number;
}

const malformed = (why: string) => new ApiError('bad_request', `Malformed multipart body: ${why}.`);

/** A form field cut at MAX_FIELD_BYTES, refused with the spec's 422 (never imported cut). */
export const fieldTooLong = (name: string, advice = 'send it as a file') =>
  new ApiError('unprocessable_entity', `The "${name}" part was sent as a form field (no filename) longer than ${MAX_FIELD_BYTES} bytes: ${advice}.`);

type Event = { part: MultipartPart; stream?: Readable } | { error: unknown } | { done: true };

/**
 * The parts of the body in order, parsed by busboy; a part's unread content is skipped when the
 * next is asked for. The body is written into busboy only as fast as the reader takes a file's
 * bytes (busboy holds the write back while a file stream is full), so nothing is held whole.
 *
 * Errors: busboy's (a malformed or cut body) are the client's, a 400; the body's own (a size
 * limit's 413, a failed disk) reach the reader as they are, so anything not an ApiError ends as a
 * logged 500 in the error handler.
 */
export async function* multipartParts(body: AsyncIterable<Buffer | string>, boundary: string, options: MultipartOptions = {}): AsyncGenerator<MultipartPart> {
  let bb: busboy.Busboy;
  try {
    const limits = { fieldSize: MAX_FIELD_BYTES, ...(options.maxFileBytes === undefined ? {} : { fileSize: options.maxFileBytes }) };
    bb = busboy({ headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, limits });
  } catch (err) {
    throw parseError(err);
  }
  const events: Event[] = [];
  let wake: (() => void) | undefined;
  const push = (e: Event) => { events.push(e); wake?.(); wake = undefined; };
  const next = async (): Promise<Event> => {
    while (!events.length) await new Promise<void>((r) => (wake = r));
    return events.shift()!;
  };
  const live = new Set<Readable>();
  bb.on('file', (name, stream, info) => {
    live.add(stream);
    stream.once('close', () => live.delete(stream));
    // Read through its iterator; once the reader is gone, busboy's destroy of it must not be uncaught.
    stream.on('error', () => undefined);
    push({ part: fromStream(name, info.filename, stream), stream });
  });
  bb.on('field', (name, value, info) => {
    push({ part: fromBuffer(name, Buffer.from(value, 'utf8'), info.valueTruncated) });
  });
  bb.on('error', (err) => push({ error: parseError(err) }));
  bb.on('close', () => push({ done: true }));
  let stopped = false;
  let sawPart = false;
  let failure: unknown;
  const pump = (async () => {
    try {
      for await (const chunk of body) {
        if (stopped) return;
        try {
          await new Promise<void>((resolve, reject) => bb.write(chunk, (e) => (e ? reject(e) : resolve())));
        } catch (err) {
          // busboy refused the bytes: the body is malformed (its 'error' event says so too).
          push({ error: parseError(err) });
          return;
        }
      }
      bb.end();
    } catch (err) {
      // The body's own error (a size limit, a closed connection, a disk) is what the caller must see.
      failure = err;
      for (const stream of live) stream.destroy(err as Error);
      push({ error: err });
    }
  })();
  function fromStream(name: string, filename: string | undefined, stream: Readable & { truncated?: boolean }): MultipartPart {
    const part: MultipartPart = { name, filename, content: undefined as never, text: (max) => textOf(part.content, max) };
    part.content = (async function* () {
      // A reader that stops early leaves the rest to flow on unread: destroying it would stall busboy.
      if (failure) throw failure;
      try {
        for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
          if (stream.truncated) break;
          yield chunk as Buffer;
        }
      } catch (err) {
        throw failure ?? parseError(err);
      }
      if (failure) throw failure;
      if (stream.truncated) {
        part.truncated = true;
        throw new ApiError('payload_too_large', `The "${name}" file is larger than the limit of ${options.maxFileBytes} bytes.`);
      }
    })();
    return part;
  }
  try {
    for (;;) {
      const e = await next();
      if ('error' in e) throw e.error;
      if ('done' in e) {
        if (!sawPart) throw malformed('no part found');
        return;
      }
      sawPart = true;
      yield e.part;
      // Whatever the reader left of a file part flows on unread.
      if (e.stream && !e.stream.readableEnded) e.stream.resume();
    }
  } finally {
    stopped = true;
    if (!bb.writableEnded) bb.destroy();
    void pump;
  }
}

/** busboy's own errors (a malformed or cut body) as the spec's 400; an ApiError as it is. */
function parseError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const why = err instanceof Error ? err.message.replace(/\.$/, '').toLowerCase() : 'unreadable';
  return malformed(why);
}

function fromBuffer(name: string, value: Buffer, truncated: boolean): MultipartPart {
  const content = (async function* () {
    if (truncated) throw fieldTooLong(name);
    if (value.length) yield value;
  })();
  return { name, truncated, content, text: async (max) => {
    if (truncated || value.length > max) throw malformed(`a form field is longer than ${max} bytes`);
    return value.toString('utf8');
  } };
}

async function textOf(content: AsyncIterable<Buffer>, maxBytes: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of content) {
    size += chunk.length;
    if (size > maxBytes) throw malformed(`a form field is longer than ${maxBytes} bytes`);
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The content of the first part named `field`, streamed; a 400 when the body has none. */
export async function* multipartField(body: AsyncIterable<Buffer | string>, boundary: string, field: string): AsyncGenerator<Buffer> {
  for await (const part of multipartParts(body, boundary)) {
    if (part.name !== field) continue;
    yield* csvFileContent(part);
    return;
  }
  throw new ApiError('bad_request', `The multipart body has no "${field}" field: upload the CSV file as the field "${field}".`);
}

/** A CSV file part's content; one cut at a limit is refused (422 for a long form field), never imported cut. */
export async function* csvFileContent(part: MultipartPart): AsyncGenerator<Buffer> {
  if (part.truncated && !part.filename) throw fieldTooLong(part.name, 'upload the CSV as a file');
  yield* part.content;
}

/**
 * A request body received as fast as the client sends it, into a temporary file, and read back at
 * the import's pace. Memory holds a chunk, not the file; and since the socket is always read,
 * a client that goes away is seen at once (its connection's end comes after the data it sent,
 * which a paused socket would leave unread until the import got there: the import would have
 * run to the end for no one). The file is unlinked as soon as it is open, so nothing is left
 * behind, even by a crash; unless an import job keeps it (`keepAt`) to be resumed from.
 *
 * The body is capped (`maxBytes`: a 413 naming the cap, as soon as it passes), and never destroyed
 * when reading stops early: the answer saying why must still reach the client.
 *
 * @example
 * for await (const chunk of spoolBody(request.raw, { maxBytes: 64 * 2 ** 20 })) parser.write(chunk);
 */
import { open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { tooLarge } from './limits.js';

const READ_BYTES = 64 * 1024;

export interface SpoolOptions {
  maxBytes: number;
  dir?: string;
  /** Keep the file at this path (an import job's, to resume from); the caller removes it. */
  keepAt?: string;
  /** Called once the whole body is in the file. */
  onComplete?: () => void;
}

export async function* spoolBody(body: Readable, options: SpoolOptions): AsyncGenerator<Buffer> {
  const path = options.keepAt ?? join(options.dir ?? tmpdir(), `waymark-upload-${randomBytes(8).toString('hex')}`);
  const file = await open(path, 'w+', 0o600);
  if (!options.keepAt) await unlink(path);
  let written = 0;
  let ended = false;
  let failure: unknown;
  let stopped = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const receiving = (async () => {
    try {
      // Not destroyed on an early stop: Node drops the rest once the answer is out.
      for await (const chunk of body.iterator({ destroyOnReturn: false })) {
        if (stopped) return;
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        if (written + buf.length > options.maxBytes) throw tooLarge(options.maxBytes, true);
        await file.write(buf, 0, buf.length, written);
        written += buf.length;
        notify();
      }
      ended = true;
      if (options.keepAt) await file.sync();
      options.onComplete?.();
    } catch (err) {
      failure = err;
    } finally {
      notify();
    }
  })();
  try {
    let at = 0;
    for (;;) {
      if (at < written) {
        // A buffer of its own per chunk: the reader keeps it (or hands it to the import thread).
        const buf = Buffer.allocUnsafe(Math.min(READ_BYTES, written - at));
        const { bytesRead } = await file.read(buf, 0, buf.length, at);
        at += bytesRead;
        yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    // What the client still sends is dropped with the answer (Node reads and discards it).
    stopped = true;
    notify();
    void receiving.finally(() => file.close()).catch(() => undefined);
  }
}

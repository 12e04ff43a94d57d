/**
 * The built-in subscriber of `EVENTS_FILE`: appends each domain event as one line of JSON
 * (`{id, event, createdAt, workspaceId, data}`) to a file, for a log shipper to stream on.
 *
 * Delivery is at least once (publisher.ts), so the sink skips event ids it has written: those of
 * this process, and at its first delivery those found in the last MiB of the file, where a
 * delivery that a crash left unrecorded can only be. The file is not created until the first
 * event; a failed append (missing folder, no permission) is retried by the publisher.
 */
import { appendFile, open } from 'node:fs/promises';
import { DOMAIN_EVENT_TYPES, type DomainEvent, type DomainEventType } from './outbox.js';
import type { Subscriber } from './publisher.js';

/** Bytes read from the end of the file at the first delivery, for ids already written. */
const TAIL_BYTES = 1024 * 1024;
/** Ids remembered in memory (insertion order; the oldest are forgotten first). */
const SEEN_MAX = 50_000;

async function idsAtEnd(path: string): Promise<string[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    await handle.read(buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    if (start > 0) lines.shift(); // cut in the middle
    const ids: string[] = [];
    for (const line of lines) {
      const m = /^\{"id":"([^"]+)"/.exec(line);
      if (m) ids.push(m[1]!);
    }
    return ids;
  } finally {
    await handle.close();
  }
}

export function createFileSink(options: { path: string; events?: readonly DomainEventType[]; name?: string }): Subscriber {
  const { path } = options;
  let seen: Set<string> | null = null;
  const remember = (id: string) => {
    seen!.add(id);
    if (seen!.size > SEEN_MAX) seen!.delete(seen!.values().next().value!);
  };
  return {
    name: options.name ?? 'file',
    events: options.events ?? DOMAIN_EVENT_TYPES,
    async deliver(event: DomainEvent) {
      if (!seen) {
        const ids = await idsAtEnd(path);
        seen = new Set();
        for (const id of ids) remember(id);
      }
      if (seen.has(event.id)) return;
      const { id, event: type, createdAt, workspaceId, data } = event;
      await appendFile(path, `${JSON.stringify({ id, event: type, createdAt, workspaceId, data })}\n`);
      remember(event.id);
    },
  };
}

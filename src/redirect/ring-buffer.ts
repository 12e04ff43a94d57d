/**
 * The click writer's buffer in the app: the shared click ring (events/log/click-ring.ts). A row
 * is written into the ring at `head`; a batch is the range of rows [tail, sent) the log thread
 * reads in place, and `tail` moves past it only once the batch is stored (`release`), so a click
 * leaves memory only once it is committed. A full ring (`head - tail` = capacity) refuses the row:
 * the writer keeps it beside the ring and holds its answer (click-writer.ts `overflow`).
 *
 * Memory: capacity × ROW_BYTES for the rows (3 MiB at the default 65,536) plus the intern tables'
 * text (bounded per table, click-ring.ts), whatever the traffic.
 *
 * @example
 * const buffer = createRingBuffer(createClickRing({ capacity: 65_536, clickIdOf }));
 * events.attachClickRing(buffer.ring.buffer);  // once: the log thread maps the same memory
 * createClickWriter({ buffer, log: { appendRawClicks: (id, batch) => events.appendClickRing(id, batch) }, … });
 */
import type { ClickRing, RawClick, RingBatch } from '../events/index.js';
import { clickIdParts } from '../visitors/click-id.js';
import type { ClickBuffer } from './click-buffer.js';

/**
 * A click as the redirect hands it to the ring, with what it already knows as integers: the click
 * id's random parts (so `id` is not parsed again) and the agent's id in the redirect's agent table
 * with its epoch (redirect/agents.ts). Each is optional: a row without them (a test's, any
 * caller's that has only the text) is read from its text; a copy kept beside a full ring keeps
 * them.
 */
export interface RingRow extends RawClick {
  part1?: number;
  part2?: number;
  agent?: number;
  agentEpoch?: number;
}

export interface RingBuffer extends ClickBuffer<RingRow, RingBatch> {
  readonly ring: ClickRing;
  /** The first row not yet stored. */
  readonly tail: number;
}

export function createRingBuffer(ring: ClickRing): RingBuffer {
  let tail = 0;
  let sent = 0;
  return {
    ring,
    copiesRows: true,
    get tail() {
      return tail;
    },
    get waiting() {
      return ring.head - sent;
    },
    get inFlight() {
      return sent - tail;
    },
    push(row) {
      if (row.part1 !== undefined && row.part2 !== undefined) return ring.write(row, row.part1, row.part2, tail, row.agent, row.agentEpoch) !== undefined;
      const parts = clickIdParts(row.id);
      // The ring spells the id again from the row's time and the two random parts.
      if (!parts || parts[0] !== Math.max(0, Math.floor(row.timestamp))) throw new Error(`not the click id of a click at ${row.timestamp}: ${row.id}`);
      return ring.write(row, parts[1], parts[2], tail) !== undefined;
    },
    take(count) {
      const batch = ring.batch(sent, sent + count);
      sent += count;
      return batch;
    },
    release() {
      tail = sent;
    },
    oldest: () => (tail < ring.head ? ring.timeOf(tail) : undefined),
    find(clickId) {
      const seq = ring.find(clickId, tail, ring.head);
      return seq === undefined ? undefined : ring.read(seq);
    },
    rows(inFlight) {
      const out: RawClick[] = [];
      for (let seq = inFlight ? tail : sent; seq < ring.head; seq++) out.push(ring.read(seq));
      return out;
    },
    clear() {
      tail = sent = ring.head;
    },
  };
}

/**
 * Where the click writer's rows wait until they are stored (click-writer.ts): rows waiting for a
 * batch, then the one batch in flight, which leaves memory only on `release` (after its commit).
 * Two kinds: an array of the rows themselves (`createArrayBuffer`, for any row type), and the
 * shared click ring (ring-buffer.ts), whose batches are ranges of rows the log thread reads in place.
 *
 * @example
 * const buffer = createArrayBuffer<RawClick>(500_000);
 * buffer.push(row);                  // false when full
 * const batch = buffer.take(2000);   // in flight
 * buffer.release();                  // stored: gone
 */

/** What the writer needs of a row: its click id, and its time (the lag is the oldest one's age). */
export interface ClickRow {
  id: string;
  /** ms, on the writer's clock (`now`). */
  timestamp: number;
}

export interface ClickBuffer<Row extends ClickRow, Payload> {
  /** True when `push` copies the row (the caller may reuse the object). */
  readonly copiesRows: boolean;
  /** Rows waiting for a batch. */
  readonly waiting: number;
  /** Rows of the batch in flight (0 when none). */
  readonly inFlight: number;
  /** Adds a row; false, and nothing added, when the buffer is full. */
  push(row: Row): boolean;
  /** The oldest `count` waiting rows become the batch in flight (none may be in flight); its payload. */
  take(count: number): Payload;
  /** The batch in flight is stored: its rows leave memory. */
  release(): void;
  /** Time of the oldest row not stored (in flight, else waiting). */
  oldest(): number | undefined;
  /** A row not yet stored, by click id. */
  find(clickId: string): Row | undefined;
  /** The rows not stored, oldest first: the batch in flight's when `inFlight`, then the waiting ones. */
  rows(inFlight: boolean): Row[];
  /** Forgets every row (they were spilled). */
  clear(): void;
}

/** Rows kept as they are, up to `max` of them waiting (besides the batch in flight). */
export function createArrayBuffer<Row extends ClickRow>(max: number): ClickBuffer<Row, readonly Row[]> {
  let waiting: Row[] = [];
  let inFlight: readonly Row[] = [];
  return {
    copiesRows: false,
    get waiting() {
      return waiting.length;
    },
    get inFlight() {
      return inFlight.length;
    },
    push(row) {
      if (waiting.length >= max) return false;
      waiting.push(row);
      return true;
    },
    take(count) {
      inFlight = count >= waiting.length ? waiting : waiting.slice(0, count);
      waiting = count >= waiting.length ? [] : waiting.slice(count);
      return inFlight;
    },
    release() {
      inFlight = [];
    },
    oldest: () => (inFlight.length ? inFlight[0]!.timestamp : waiting[0]?.timestamp),
    find(clickId) {
      for (let i = waiting.length - 1; i >= 0; i--) if (waiting[i]!.id === clickId) return waiting[i];
      return inFlight.find((r) => r.id === clickId);
    },
    rows: (withInFlight) => (withInFlight ? [...inFlight, ...waiting] : [...waiting]),
    clear() {
      waiting = [];
      inFlight = [];
    },
  };
}

/**
 * `--report <file.csv>`: one row per item an import rejected, written as the import goes (a run
 * that rejects a million clicks holds none of them in memory), through the exports' CSV writer
 * and cell function, so the report gets the same quoting and spreadsheet-formula neutralisation
 * as every export. Columns: kind (link, click, …), the source's id of the item, its domain/key
 * (for a domain its slug, a tag or folder its name, a customer its external id), the reason.
 *
 * @example
 * const report = openRejectionReport('rejected.csv');
 * report.add({ kind: 'link', sourceId: 'link_1', item: 'dub.sh/spring', reason: 'the key is taken …' });
 * await report.close();
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { csvStream } from '../exports/streams.js';

export interface Rejection {
  kind: 'domain' | 'tag' | 'folder' | 'link' | 'customer' | 'click' | 'lead' | 'sale';
  sourceId: string;
  /** `domain/key` for links and events, the slug, name or external id for the others. */
  item: string;
  reason: string;
}

export const REPORT_COLUMNS = ['kind', 'sourceId', 'domainKey', 'reason'] as const;

export interface RejectionReport {
  add(rejection: Rejection): void;
  /** Ends the file and waits until it is written (or throws its write error). */
  close(): Promise<void>;
}

/** Creates the file at once (an unwritable path fails before the import starts, not at its end). */
export function openRejectionReport(file: string): RejectionReport {
  writeFileSync(file, '');
  let queued: Rejection[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  async function* pages(): AsyncGenerator<Rejection[]> {
    for (;;) {
      if (queued.length) {
        const page = queued;
        queued = [];
        yield page;
      } else if (closed) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  const written = pipeline(csvStream(REPORT_COLUMNS, pages(), (r) => [r.kind, r.sourceId, r.item, r.reason]), createWriteStream(file));
  // Seen by close(); a failure before it is not an unhandled rejection meanwhile.
  written.catch(() => {});
  return {
    add(rejection) {
      if (closed) throw new Error('the report is closed');
      queued.push(rejection);
      signal();
    },
    async close() {
      closed = true;
      signal();
      await written;
    },
  };
}

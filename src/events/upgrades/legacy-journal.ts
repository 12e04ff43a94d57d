/**
 * The click batch files of the previous version's click journal (`<event file>.batches/clicks-<n>.csv`,
 * each named by a `click_journal` row of the metadata database): read once by the upgrade that
 * replays what a crash left there (journal-replay.ts). The format, for as long as such files may
 * exist: events in `EVENT_COLUMNS` order, RFC 4180 quoting (a field with a quote, comma, line
 * break or backslash, and the empty string, is quoted; quotes are doubled), `\N` unquoted for
 * null, integers in decimal, one line per event ending in `\n`. `eventsCsv` writes it (the
 * upgrade's tests make files of the previous version with it).
 *
 * @example
 * parseEventsCsv(readFileSync(file, 'utf8')); // [{ workspace_id: 'ws_1', timestamp: 1764028800000, … }]
 */
import type { StoredEvent } from '../event-store.js';
import { EVENT_COLUMNS, INTEGER_COLUMNS } from '../column/column-engine.js';

const NULL = '\\N';
const NEEDS_QUOTES = /[",\n\r\\]/;
const INTEGER = EVENT_COLUMNS.map((c) => INTEGER_COLUMNS.has(c));

function field(value: unknown, integer: boolean): string {
  if (value == null) return NULL;
  if (integer) return String(Math.trunc(Number(value)));
  const text = String(value);
  if (text === '' || NEEDS_QUOTES.test(text)) return `"${text.replaceAll('"', '""')}"`;
  return text;
}

/** The events as CSV lines. `amount` null is written 0, as the engines store it. */
export function eventsCsv(rows: readonly StoredEvent[]): string {
  let out = '';
  for (const row of rows) {
    const r = row as unknown as Record<string, unknown>;
    for (let i = 0; i < EVENT_COLUMNS.length; i++) {
      const column = EVENT_COLUMNS[i]!;
      const value = column === 'amount' ? (r.amount ?? 0) : r[column];
      out += (i ? ',' : '') + field(value, INTEGER[i]!);
    }
    out += '\n';
  }
  return out;
}

/** Reads `eventsCsv` text back: one object per line, integers as numbers, null for `\N`. */
export function parseEventsCsv(text: string): StoredEvent[] {
  const rows: StoredEvent[] = [];
  let i = 0;
  while (i < text.length) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < EVENT_COLUMNS.length; c++) {
      let value: string | null;
      if (text[i] === '"') {
        let v = '';
        i++;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q < 0) throw new Error('unterminated quoted field in events CSV');
          v += text.slice(i, q);
          if (text[q + 1] === '"') {
            v += '"';
            i = q + 2;
          } else {
            i = q + 1;
            break;
          }
        }
        value = v;
      } else {
        let end = i;
        while (end < text.length && text[end] !== ',' && text[end] !== '\n') end++;
        const raw = text.slice(i, end);
        value = raw === NULL ? null : raw;
        i = end;
      }
      const expected = c === EVENT_COLUMNS.length - 1 ? '\n' : ',';
      if (text[i] !== expected) throw new Error(`malformed events CSV at character ${i}`);
      i++;
      row[EVENT_COLUMNS[c]!] = value !== null && INTEGER[c] ? Number(value) : value;
    }
    rows.push(row as unknown as StoredEvent);
  }
  return rows;
}

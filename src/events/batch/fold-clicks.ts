/**
 * The clicks one fold counts (log/fold.ts), as its listeners see them: the stored batches in
 * columns. Counting per link and per workspace reads the columns; a listener that needs rows
 * (outbox entries, webhook deliveries of subscribed links) asks for those of the links it wants,
 * decided once per link of a batch, and only those clicks become rows. A click's row is the same
 * object for every listener of the fold (its event id is keyed on it: `FoldContext.eventIdOf`).
 *
 * @example
 * const clicks = foldClicks([columnsA, columnsB]);
 * clicks.linkBumps();                                   // [{ id: 'lnk_1', clicks: 3, lastClicked: … }]
 * clicks.rowsWhere((l) => l.workspace_id === 'ws_1');   // StoredEvent rows of ws_1's clicks only
 */
import type { StoredEvent } from '../event-store.js';
import type { LinkBump, WorkspaceBump } from '../counters.js';
import type { ClickColumns, ClickLinkEntry } from './click-columns.js';
import { linkCounts, rowAt } from './wide-rows.js';

export type LinkWanted = (link: ClickLinkEntry) => boolean;

export interface FoldClicks {
  readonly length: number;
  readonly batches: readonly ClickColumns[];
  linkBumps(): LinkBump[];
  workspaceBumps(): WorkspaceBump[];
  /** Whether any click's link is wanted. */
  some(wanted: LinkWanted): boolean;
  /** The rows of the clicks whose link is wanted, in order. */
  rowsWhere(wanted: LinkWanted): StoredEvent[];
}

export function foldClicks(batches: readonly ClickColumns[]): FoldClicks {
  const rows = batches.map(() => new Map<number, StoredEvent>());
  let counts: { links: LinkBump[]; workspaces: WorkspaceBump[] } | undefined;
  const countAll = () => {
    if (counts) return counts;
    const links = new Map<string, LinkBump>();
    const workspaces = new Map<string, WorkspaceBump>();
    for (const b of batches) {
      const c = linkCounts(b);
      for (const [id, l] of c.links) {
        const known = links.get(id);
        if (known) {
          known.clicks += l.clicks;
          if (l.lastClicked > known.lastClicked) known.lastClicked = l.lastClicked;
        } else links.set(id, { id, clicks: l.clicks, lastClicked: l.lastClicked });
      }
      for (const [id, n] of c.workspaces) {
        const known = workspaces.get(id);
        if (known) known.clicks += n;
        else workspaces.set(id, { id, clicks: n });
      }
    }
    return (counts = { links: [...links.values()], workspaces: [...workspaces.values()] });
  };
  return {
    length: batches.reduce((n, b) => n + b.length, 0),
    batches,
    linkBumps: () => countAll().links,
    workspaceBumps: () => countAll().workspaces,
    some(wanted) {
      return batches.some((b) => {
        const used = new Uint8Array(b.dictionaries.links.length);
        for (let i = 0; i < b.length; i++) used[b.link[i]!] = 1;
        return b.dictionaries.links.some((l, at) => used[at] === 1 && wanted(l));
      });
    },
    rowsWhere(wanted) {
      const out: StoredEvent[] = [];
      batches.forEach((b, at) => {
        const wants = b.dictionaries.links.map(wanted);
        if (!wants.some(Boolean)) return;
        const made = rows[at]!;
        for (let i = 0; i < b.length; i++) {
          if (!wants[b.link[i]!]) continue;
          let row = made.get(i);
          if (!row) made.set(i, (row = rowAt(b, i)));
          out.push(row);
        }
      });
      return out;
    },
  };
}

/**
 * What an import did, counted as it goes: per resource created / already there / rejected, per
 * event kind copied / already there / rejected, links that moved domain, and every distinct
 * rejection reason with its count. Rejections also go to the report file when one is asked for.
 * `describeSummary` turns it into the lines the CLI prints on stdout, the reasons last.
 *
 * @example
 * const tally = createTally({ report, progress });
 * tally.reject({ kind: 'link', sourceId: 'l1', item: 'dub.sh/x', reason: 'the key is taken on go.example.com by another workspace' });
 * describeSummary(tally.summary(plan.moves()));
 */
import type { DomainMove } from './domain-plan.js';
import type { Rejection, RejectionReport } from './report.js';

export interface PhaseCount {
  created: number;
  existing: number;
  rejected: number;
}

export interface EventCount {
  written: number;
  skipped: number;
  rejected: number;
}

export type Phase = 'domains' | 'tags' | 'folders' | 'links' | 'customers';
export type EventPhase = 'clicks' | 'leads' | 'sales';

export interface ReasonCount {
  kind: Rejection['kind'];
  reason: string;
  count: number;
}

export interface ImportSummary {
  dryRun: boolean;
  domains: PhaseCount;
  tags: PhaseCount;
  folders: PhaseCount;
  links: PhaseCount;
  customers: PhaseCount;
  events?: Record<EventPhase, EventCount>;
  /** Links that landed on another domain than the source's, by pair. */
  moves: DomainMove[];
  /** Source domains not copied because `--domain-map` sends their links elsewhere. */
  mappedDomains: { from: string; to: string }[];
  /** Every distinct rejection reason, most frequent first. */
  reasons: ReasonCount[];
  /** Lines of their own at the end (the Bitly import's click totals). */
  notes: string[];
}

const PHASE_OF: Record<Rejection['kind'], Phase | EventPhase> = {
  domain: 'domains', tag: 'tags', folder: 'folders', link: 'links', customer: 'customers', click: 'clicks', lead: 'leads', sale: 'sales',
};

export function createTally(options: { dryRun?: boolean; report?: RejectionReport; progress?: (line: string) => void } = {}) {
  const zero = (): PhaseCount => ({ created: 0, existing: 0, rejected: 0 });
  const summary: ImportSummary = {
    dryRun: !!options.dryRun, domains: zero(), tags: zero(), folders: zero(), links: zero(), customers: zero(), moves: [], mappedDomains: [], reasons: [], notes: [],
  };
  const reasons = new Map<string, ReasonCount>();
  return {
    summary,
    count(phase: Phase, result: 'created' | 'existing'): void {
      summary[phase][result]++;
    },
    events(): Record<EventPhase, EventCount> {
      const none = (): EventCount => ({ written: 0, skipped: 0, rejected: 0 });
      return (summary.events ??= { clicks: none(), leads: none(), sales: none() });
    },
    reject(r: Rejection): void {
      const phase = PHASE_OF[r.kind];
      if (phase === 'clicks' || phase === 'leads' || phase === 'sales') this.events()[phase].rejected++;
      else summary[phase].rejected++;
      const key = `${phase}\u0000${r.reason}`;
      const entry = reasons.get(key) ?? { kind: r.kind, reason: r.reason, count: 0 };
      entry.count++;
      reasons.set(key, entry);
      options.report?.add(r);
      options.progress?.(`${phase}: rejected ${r.item}: ${r.reason}`);
    },
    /** The summary, completed with the moves and the reasons, most frequent first. */
    finish(moves: DomainMove[]): ImportSummary {
      summary.moves = moves;
      summary.reasons = [...reasons.values()].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
      return summary;
    },
  };
}

export type Tally = ReturnType<typeof createTally>;

/** The summary as lines: a line per resource and event kind, the moves, then every reason. */
export function describeSummary(s: ImportSummary): string[] {
  const lines: string[] = [];
  if (s.dryRun) lines.push('Dry run: nothing was written; the counts say what a run would do.');
  for (const k of ['domains', 'tags', 'folders', 'links', 'customers'] as const) {
    lines.push(`${k}: ${s[k].created} copied, ${s[k].existing} already there, ${s[k].rejected} rejected`);
  }
  for (const m of s.mappedDomains) lines.push(`domain ${m.from} not copied: --domain-map sends its links to ${m.to}`);
  for (const m of s.moves) lines.push(`links moved domain: ${m.links} from ${m.from} to ${m.to} (same keys: their short links change)`);
  if (s.events) {
    for (const k of ['clicks', 'leads', 'sales'] as const) {
      lines.push(`${k}: ${s.events[k].written} copied, ${s.events[k].skipped} already there, ${s.events[k].rejected} rejected`);
    }
  }
  lines.push(...s.notes);
  if (s.reasons.length) {
    lines.push('Rejected, by reason:');
    for (const r of s.reasons) lines.push(`  ${r.count} ${PHASE_OF[r.kind]}: ${r.reason}`);
  } else lines.push('Nothing was rejected.');
  return lines;
}

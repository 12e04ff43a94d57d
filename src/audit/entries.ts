/**
 * Pure pieces of the audit log: the row a note becomes (secrets removed), and the entry the API,
 * the dashboard page and the CSV export show.
 */
import { newId } from '../ids.js';
import type { Actor, ActorType, Change } from './model.js';
import type { AuditRow } from './store.js';

/** Keys whose values are never stored, whatever a service passes: the field's name is kept, not its value. */
const SECRET_KEY = /pass(word)?|secret|token|^key$|apikey|hash/i;
/** Longest `changes` JSON kept; bigger summaries keep their keys and drop their values. */
const MAX_CHANGES_CHARS = 8_000;

/** `changes` without secret values: a secret key's value becomes `"[redacted]"`. */
export function withoutSecrets(changes: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(changes)) {
    if (SECRET_KEY.test(k)) out[k] = '[redacted]';
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = withoutSecrets(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

export function rowOf(change: Change, actor: Actor, ip: string | null, at: number): AuditRow {
  const ids = typeof change.targetIds === 'string' ? [change.targetIds] : [...change.targetIds];
  let changes = JSON.stringify(withoutSecrets(change.changes ?? {}));
  if (changes.length > MAX_CHANGES_CHARS) changes = JSON.stringify({ fields: Object.keys(change.changes ?? {}), truncated: true });
  return {
    id: newId('aud', at),
    workspace_id: change.workspaceId,
    at,
    actor_type: actor.type,
    actor_id: actor.id ?? null,
    ip,
    action: change.action,
    target_type: change.action.split('.')[0]!,
    target: ids.length === 1 ? ids[0]! : null,
    target_ids: JSON.stringify(ids),
    changes,
  };
}

export interface AuditEntry {
  id: string;
  timestamp: string;
  actor: { type: ActorType; id: string | null };
  ip: string | null;
  action: string;
  target: { type: string; id: string | null; ids: string[]; count: number };
  changes: Record<string, unknown>;
}

export function entryOf(row: AuditRow): AuditEntry {
  const ids = JSON.parse(row.target_ids) as string[];
  return {
    id: row.id,
    timestamp: new Date(Number(row.at)).toISOString(),
    actor: { type: row.actor_type as ActorType, id: row.actor_id },
    ip: row.ip,
    action: row.action,
    target: { type: row.target_type, id: row.target, ids, count: ids.length },
    changes: JSON.parse(row.changes) as Record<string, unknown>,
  };
}

/** The CSV export's header and one entry's cells (the CSV writer neutralises formulas). */
export const CSV_HEADER = ['id', 'timestamp', 'actor_type', 'actor_id', 'ip', 'action', 'target_type', 'target_ids', 'changes'] as const;
export function csvCells(e: AuditEntry): string[] {
  return [e.id, e.timestamp, e.actor.type, e.actor.id ?? '', e.ip ?? '', e.action, e.target.type, e.target.ids.join(' '), JSON.stringify(e.changes)];
}

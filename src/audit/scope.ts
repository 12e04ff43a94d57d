/**
 * Who is acting, for the audit log: one scope per HTTP request or CLI command, carried by
 * AsyncLocalStorage so that services note a change without every signature taking an actor.
 * A service calls `noteChange` inside the write's transaction, after the write; the transaction inserts the notes
 * when it commits (`takePending`, called by the commit hook of db/commit-hook.ts that
 * audit/module.ts installs), so a rolled-back change leaves no entry and a committed one has one.
 *
 * @example
 * auditScope.run(newScope({ type: 'api_key', id: keyId }, '203.0.113.9'), () => handler());
 * noteChange(workspaceId, 'link.update', id, { fields: ['url'] }); // inside the write's transaction
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type ActorType = 'user' | 'api_key' | 'cli';

export interface Actor {
  type: ActorType;
  /** The user's or API key's id; absent for the CLI. */
  id?: string;
}

/** One change, as a service describes it. */
export interface ChangeNote {
  workspaceId: string;
  /** `<target type>.<verb>`: `link.create`, `member.remove`, `links.bulk_update`. */
  action: string;
  targetType: string;
  targetIds: readonly string[];
  /** What changed: field names, counts, new roles. Never secrets (passwords, key values, tokens). */
  changes?: Record<string, unknown>;
  /** Who acted, when the scope cannot know (a person accepting an invitation signs up in the request). */
  actor?: Actor;
}

export interface AuditScope {
  actor?: Actor;
  ip?: string;
  /** Notes waiting for the transaction that writes their change. */
  pending: ChangeNote[];
}

export const auditScope = new AsyncLocalStorage<AuditScope>();

export function newScope(actor?: Actor, ip?: string): AuditScope {
  return { actor, ip, pending: [] };
}

/** Sets the actor of the current scope (the auth hooks know it after the scope began). */
export function setActor(actor: Actor): void {
  const scope = auditScope.getStore();
  if (scope) scope.actor = actor;
}

/**
 * Records that a change is about to be written: its transaction's commit writes the entry. Outside
 * a scope (background work: retention, the webhook dispatcher), nothing is recorded.
 */
export function noteChange(workspaceId: string, action: string, targetIds: string | readonly string[], changes?: Record<string, unknown>, actor?: Actor): void {
  const ids = typeof targetIds === 'string' ? [targetIds] : targetIds;
  auditScope.getStore()?.pending.push({ workspaceId, action, targetType: action.split('.')[0]!, targetIds: ids, changes, actor });
}

/** The names of the fields a body sets (never their values: a summary that cannot leak a secret). */
export function fieldsOf(body: object): string[] {
  return Object.entries(body)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort();
}

/** Drops notes whose write did not happen (a refused change before any transaction). */
export function dropPending(): void {
  const scope = auditScope.getStore();
  if (scope) scope.pending.length = 0;
}

/** The notes to write in the transaction committing now, and who wrote them; removes them from the scope. */
export function takePending(): { scope: AuditScope; notes: ChangeNote[] } | undefined {
  const scope = auditScope.getStore();
  if (!scope?.pending.length) return undefined;
  const notes = scope.pending.splice(0);
  return { scope, notes };
}

/** Puts notes back when their transaction rolled back after they were taken (a retried transaction writes them again). */
export function restorePending(scope: AuditScope, notes: ChangeNote[]): void {
  scope.pending.unshift(...notes);
}

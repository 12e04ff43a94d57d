/**
 * Workspaces made from the dashboard (the CLI's `workspaces create` stays the operator's way, with
 * no such limits). Who may make one is the operator's choice (`WORKSPACE_CREATION`):
 *
 * - `owners` (default): a user who owns at least one workspace, so people invited as members or
 *   viewers of a team's workspace cannot open workspaces of their own on the installation;
 * - `anyone`: every signed-in user;
 * - `none`: nobody (only `npx waymark workspaces create`).
 *
 * A user owns at most `WORKSPACE_CREATION_LIMIT` workspaces (default 20) whatever made them: a
 * form's 21st is refused (403). The creator becomes the owner in the transaction that inserts the
 * workspace (checked again there, under a lock of the user's row, so two forms at once cannot pass
 * the limit), with one `workspace.create` entry in the new workspace's audit log.
 *
 * @example
 * creationRefusal({ policy: 'owners', limit: 20 }, [{ role: 'viewer' }]);   // 'Only owners of a workspace …'
 * const ws = await createOwnedWorkspace(deps, rule, user.id, memberships, { name: 'Acme', slug: '' }, who);
 */
import type { Who } from '../audit/record.js';
import type { TransactionStep } from '../db/tables.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { parseInput } from '../users/schema.js';
import { NewWorkspaceBody } from './schema.js';
import { assertSlugAllowed, type WorkspaceService } from './service.js';
import type { WorkspaceRow } from './store.js';

export const WORKSPACE_CREATION_POLICIES = ['owners', 'anyone', 'none'] as const;
export type WorkspaceCreationPolicy = (typeof WORKSPACE_CREATION_POLICIES)[number];

export interface CreationRule {
  policy: WorkspaceCreationPolicy;
  /** Most workspaces one user owns. */
  limit: number;
}

/** Why this user may not create a workspace, or null when they may (pure: the roles they hold). */
export function creationRefusal(rule: CreationRule, memberships: readonly { role: string }[]): string | null {
  if (rule.policy === 'none') return 'New workspaces are made by the operator on this installation (npx waymark workspaces create).';
  const owned = memberships.filter((m) => m.role === 'owner').length;
  if (rule.policy === 'owners' && owned === 0) return 'Only owners of a workspace can create new ones on this installation.';
  if (owned >= rule.limit) return `You own ${owned} workspaces, the most one person can own here (${rule.limit}).`;
  return null;
}

export interface CreationDeps {
  workspaces: Pick<WorkspaceService, 'createWorkspace' | 'suggestSlug'>;
  /** Makes the user owner of the workspace inside its transaction; refuses past `limit` owned (users/service.ts `ownershipStep`). */
  ownershipStep: (userId: string, workspaceId: string, limit: number) => TransactionStep;
}

/**
 * Creates `input` with `userId` as its owner. An empty slug gets the name's free suggestion.
 * 403 when the rule refuses; 422 (with `field`) for a bad name or slug; 409 (`slug`) when taken.
 */
export async function createOwnedWorkspace(
  deps: CreationDeps,
  rule: CreationRule,
  userId: string,
  memberships: readonly { role: string }[],
  input: { name?: string; slug?: string },
  who: Who,
): Promise<WorkspaceRow> {
  const refusal = creationRefusal(rule, memberships);
  if (refusal) throw new ApiError('forbidden', refusal);
  const name = (input.name ?? '').trim();
  const typed = (input.slug ?? '').trim();
  const slug = typed || (name ? await deps.workspaces.suggestSlug(name) : '');
  const valid = parseInput(NewWorkspaceBody, { name, slug });
  assertSlugAllowed(valid.slug);
  const id = newId('ws');
  return deps.workspaces.createWorkspace({ id, name: valid.name, slug: valid.slug }, who, deps.ownershipStep(userId, id, rule.limit));
}

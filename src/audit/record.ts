/**
 * Who is acting, and the one call that writes an audit entry. The HTTP layer builds a `Who` from
 * the request (`whoOf`: the API key or the dashboard session's user, and the client's address),
 * the CLI uses `CLI`; route handlers pass it to the services, which write the entry with `record`
 * inside the transaction of their change, after the write, so a rolled-back change leaves no entry
 * and a committed one always has one. Without a `Who` (background work: retention, the webhook
 * dispatcher, the batches of an import that records one entry of its own) nothing is written.
 *
 * The actor travels as an argument on purpose: carrying it in async context storage (node:async_hooks) installs promise
 * hooks for the whole process on Node 20, which made every `await` (the redirect's too) ~3× dearer.
 *
 * @example
 * const who = whoOf(request);                        // in a route handler
 * await db.transaction().execute(async (trx) => {
 *   await trx.updateTable('links')…;
 *   await record(trx, who, { workspaceId, action: 'link.update', targetIds: id, changes: { fields: ['url'] } });
 * });
 */
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { rowOf } from './entries.js';
import type { Actor, Change, Who } from './model.js';

export type { Actor, ActorType, Change, Who } from './model.js';

/** Changes made by a command line (`npx waymark …`). */
export const CLI: Who = { actor: { type: 'cli' }, ip: null };

/**
 * The request's actor: its API key (API routes) or its dashboard session's user, and the
 * client's address (`TRUST_PROXY`-aware, http/client-address.ts).
 */
export function whoOf(request: FastifyRequest): Who {
  const actor: Actor | null = request.auth
    ? { type: 'api_key', id: request.auth.keyId }
    : request.dashboard?.session
      ? { type: 'user', id: request.dashboard.session.user.id }
      : null;
  return { actor, ip: request.clientAddress ?? null };
}

/**
 * Writes the entry of `change` in `trx`, the transaction of the change itself. Nothing without a
 * `who` (or without any actor), so background work writes no entries.
 */
export async function record(trx: Kysely<Database>, who: Who | undefined, change: Change, now: number = Date.now()): Promise<void> {
  const actor = change.actor ?? who?.actor;
  if (!who || !actor) return;
  await trx.insertInto('audit_log').values(rowOf(change, actor, who.ip, now)).execute();
}

/** The names of the fields a body sets (never their values: a summary that cannot leak a secret). */
export function fieldsOf(body: object): string[] {
  return Object.entries(body)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort();
}

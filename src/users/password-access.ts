/**
 * Whether an account made by single sign-on may have a password. Such an account has none
 * (`NO_PASSWORD`): the provider decides who signs in, and a person removed there loses access.
 * A password would outlive that removal, so "Forgot password?" gives one only when an owner
 * allowed it on the members page (`allow`), and withdrawing the allowance (`withdraw`) removes the
 * password again, with its reset links and the sessions it opened. The operator's CLI
 * (`npx waymark users reset-password`) stays the break-glass way in.
 *
 * - Allowing loosens the sign-in of every workspace the person belongs to: only an owner of each
 *   of them may allow it (403 otherwise). Withdrawing only tightens it: any owner of one may.
 * - Each change is one `member.password` entry, `{ allowed: true | false }`, in every workspace of
 *   the person, in the change's transaction.
 *
 * @example
 * mayGetPasswordByReset(user);            // password.ts: false for an SSO account not allowed
 * await access.allow({ workspaceId, userId, actorId: owner.id }, who);
 * await access.withdraw({ workspaceId, userId }, who);
 */
import type { Kysely } from 'kysely';
import { record, type Who } from '../audit/record.js';
import type { Database } from '../db/tables.js';
import { ApiError } from '../http/errors.js';
import { NO_PASSWORD, passwordAccessOf } from './password.js';
import type { UserQueries, UserRow, UserStore } from './store.js';

export function createPasswordAccess({ store, now }: { store: UserStore; now: () => number }) {
  /** The member, or 404 when they are not one of `workspaceId`. */
  async function memberOf(s: UserQueries, workspaceId: string, userId: string): Promise<UserRow> {
    const user = (await s.roleOf(userId, workspaceId)) ? await s.findUserById(userId) : undefined;
    if (!user) throw new ApiError('not_found', 'This person is not a member of the workspace.');
    return user;
  }

  async function recordEverywhere(s: UserQueries, trx: Kysely<Database>, userId: string, who: Who | undefined, allowed: boolean): Promise<void> {
    const at = now();
    for (const w of await s.workspacesOf(userId)) await record(trx, who, { workspaceId: w.id, action: 'member.password', targetIds: userId, changes: { allowed } }, at);
  }

  return {
    /**
     * Lets a single sign-on account get a password by "Forgot password?". 404 for a non-member,
     * 409 for an account that has its own password, 403 unless `actorId` owns every workspace of
     * the person. Nothing when already allowed.
     */
    allow: ({ workspaceId, userId, actorId }: { workspaceId: string; userId: string; actorId: string }, who?: Who): Promise<void> =>
      store.transaction(async (s, trx) => {
        const user = await memberOf(s, workspaceId, userId);
        const state = passwordAccessOf(user);
        if (state === 'allowed') return;
        if (state === 'password') throw new ApiError('conflict', 'This account has its own password already.');
        for (const w of await s.workspacesOf(userId)) {
          if ((await s.roleOf(actorId, w.id)) !== 'owner') {
            throw new ApiError('forbidden', 'This person belongs to workspaces you do not own: an owner of each of them, or the operator with `npx waymark users reset-password`, decides.');
          }
        }
        await s.setPasswordAllowed(userId, now());
        await recordEverywhere(s, trx, userId, who, true);
      }),

    /**
     * Withdraws the allowance: the password it gave is removed, the account's unused reset links
     * are voided, and its sessions opened with the password end (those of single sign-on stay).
     * 404 for a non-member; nothing when not allowed.
     */
    withdraw: ({ workspaceId, userId }: { workspaceId: string; userId: string }, who?: Who): Promise<void> =>
      store.transaction(async (s, trx) => {
        const user = await memberOf(s, workspaceId, userId);
        if (passwordAccessOf(user) !== 'allowed') return;
        await s.setPasswordAllowed(userId, null);
        await s.setPassword(userId, NO_PASSWORD);
        await s.deletePasswordResetsOf(userId);
        await s.deletePasswordSessionsOf(userId);
        await recordEverywhere(s, trx, userId, who, false);
      }),
  };
}

export type PasswordAccessService = ReturnType<typeof createPasswordAccess>;

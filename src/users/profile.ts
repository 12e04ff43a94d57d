/**
 * A person's own name and email address (the dashboard's account page).
 *
 * - The name changes without the password: it grants nothing, and every member sees who is who.
 * - The email address is the login, and where password resets go, so it changes only with proof
 *   that the account's holder is at the keyboard: `mayChangeEmail` (the current password, or a
 *   fresh single sign-on of this session). It is validated as at sign-up (`Email`), unique without
 *   regard to case (409 at `email`), stored with its `email_key`. The change ends the account's
 *   other sessions (the browser that made it stays signed in), voids password-reset links not yet
 *   used (they went to the old address) and, with mail configured, writes a
 *   notice to the old address naming the new one, in the change's transaction (the outbox).
 * - A person's account belongs to no workspace, but each of their workspaces' owners should see
 *   who a member became: one `user.update` entry in every workspace they belong to, its changes
 *   `{ name: { from, to } }` or `{ email: { from, to } }` (never a password).
 *
 * @example
 * await profile.rename(user.id, 'Ann Lee', who);
 * const proof = { passwordCorrect: !!(await users.service.checkPassword(user.email, typed)), recentlyReauthenticated: false };
 * await profile.changeEmail(user.id, 'ann@new.example', proof, session.token_hash, who); // 403, 409, 422
 */
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { record, type Who } from '../audit/record.js';
import type { Database } from '../db/tables.js';
import { ApiError } from '../http/errors.js';
import type { MailWriter } from './invitations.js';
import { Email, emailKey, Name, parseInput } from './schema.js';
import type { UserQueries, UserStore } from './store.js';

/** What the person showed for an email change. */
export interface EmailChangeProof {
  /** The current password typed with the form is the account's. */
  passwordCorrect: boolean;
  /** This session signed in again with single sign-on lately (`sessions.recentlyReauthenticated`: 5 minutes). */
  recentlyReauthenticated: boolean;
}

/** The one rule for changing the login address: the password, or a fresh SSO sign-in (pure). */
export function mayChangeEmail(proof: EmailChangeProof): boolean {
  return proof.passwordCorrect || proof.recentlyReauthenticated;
}

const emailTaken = () => new ApiError('conflict', 'Another account uses this email address.', { field: 'email' });

const NameInput = z.object({ name: Name });
const EmailInput = z.object({ email: Email });

export function createProfile({ store, now, mail }: { store: UserStore; now: () => number; mail?: MailWriter }) {
  /** One entry per workspace of the user, all at one time, in the change's transaction. */
  async function recordEverywhere(s: UserQueries, trx: Kysely<Database>, userId: string, who: Who | undefined, changes: Record<string, unknown>): Promise<void> {
    const at = now();
    for (const w of await s.workspacesOf(userId)) await record(trx, who, { workspaceId: w.id, action: 'user.update', targetIds: userId, changes }, at);
  }

  return {
    /** Sets the name (422 at `name` when empty or over 100 characters); nothing when unchanged. */
    async rename(userId: string, name: string, who?: Who): Promise<void> {
      const valid = parseInput(NameInput, { name }).name;
      await store.transaction(async (s, trx) => {
        const user = await s.findUserById(userId);
        if (!user) throw new ApiError('not_found', 'User not found.');
        if (user.name === valid) return;
        await s.setName(userId, valid);
        await recordEverywhere(s, trx, userId, who, { name: { from: user.name, to: valid } });
      });
    },

    /**
     * Sets the login address. 403 at `current` without proof (`mayChangeEmail`), 422 at `email`
     * for an invalid address, 409 at `email` when another account has it. Ends every session of
     * the account but `keepSessionHash`'s; returns how many ended.
     */
    async changeEmail(userId: string, email: string, proof: EmailChangeProof, keepSessionHash: string, who?: Who): Promise<{ sessionsEnded: number }> {
      if (!mayChangeEmail(proof)) throw new ApiError('forbidden', 'The current password is wrong.', { field: 'current' });
      const valid = parseInput(EmailInput, { email }).email;
      const key = emailKey(valid);
      let mailed = false;
      const change = (): Promise<{ sessionsEnded: number }> => store.transaction(async (s, trx) => {
        const user = await s.findUserById(userId);
        if (!user) throw new ApiError('not_found', 'User not found.');
        if (user.email === valid) return { sessionsEnded: 0 };
        const holder = await s.findUserByEmailKey(key);
        if (holder && holder.id !== userId) throw emailTaken();
        await s.setEmail(userId, valid, key);
        // Another case of the same address is the same login: sessions stay, no notice.
        const moved = user.email_key !== key;
        const sessionsEnded = moved ? await s.deleteSessionsOfExcept(userId, keepSessionHash) : 0;
        // A reset link mailed to the old address before the change must not open the account after it.
        if (moved) await s.deletePasswordResetsOf(userId);
        await recordEverywhere(s, trx, userId, who, { email: { from: user.email, to: valid } });
        if (mail && moved) {
          await mail.write(trx, { kind: 'email_changed', to: user.email, newEmail: valid, name: user.name }, '');
          mailed = true;
        }
        return { sessionsEnded };
      });
      const result = await change().catch(async (err: unknown) => {
        // Two accounts moving to one address at once: the unique email_key refuses the later.
        const holder = err instanceof ApiError ? undefined : await store.findUserByEmailKey(key);
        if (holder && holder.id !== userId) throw emailTaken();
        throw err;
      });
      if (mailed) mail?.nudge();
      return result;
    },
  };
}

export type Profile = ReturnType<typeof createProfile>;

/**
 * "Forgot password?" (issue 30): a single-use link, valid for 1 hour, mailed to the account's
 * address. Asking answers the same whether or not the address has an account (no user oracle);
 * the dashboard rate-limits the asking (dashboard/routes/password-reset.tsx). The token is stored
 * hashed; using it sets the password, voids every other link of the account still unused (an
 * older mail must not open the account again) and ends every session, in one transaction.
 * Without mail (no SMTP_URL) resets are off: the operator sets a password with the CLI. An
 * account made by single sign-on gets no link unless an owner allowed it a password
 * (password-access.ts): the same answer, and no mail.
 *
 * @example
 * await resets.request('ann@example.com');            // mails a link if the account exists
 * await resets.reset(token, 'a new long password');    // 404 used or unknown, 410 expired
 */
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import { hashPassword } from './password.js';
import { Password, emailKey, parseInput } from './schema.js';
import type { UserStore } from './store.js';
import { hashToken, newToken } from './tokens.js';
import { mayGetPasswordByReset } from './password.js';
import type { MailWriter } from './invitations.js';

export const RESET_TTL_MS = 60 * 60 * 1000;

export function createPasswordResets({ store, now, mail }: { store: UserStore; now: () => number; mail?: MailWriter }) {
  return {
    /** Whether resets can be mailed at all (SMTP_URL set). */
    enabled: !!mail,

    /** Mails a reset link if `email` has an account that may have a password; answers nothing either way. */
    async request(email: string): Promise<void> {
      if (!mail) return;
      const user = await store.findUserByEmailKey(emailKey(email));
      if (!user || !mayGetPasswordByReset(user)) return;
      const token = newToken();
      const t = now();
      await store.transaction(async (s, trx) => {
        await s.sweepPasswordResets(t);
        await s.insertPasswordReset({ token_hash: hashToken(token), user_id: user.id, created_at: t, expires_at: t + RESET_TTL_MS, used_at: null });
        await mail.write(trx, { kind: 'password_reset', to: user.email, token, expiresAt: t + RESET_TTL_MS }, '');
      });
      mail.nudge();
    },

    /** Throws unless the link can still be used: 404 unknown or used, 410 expired. */
    async check(token: string): Promise<void> {
      const row = token && token.length <= 100 ? await store.findPasswordReset(hashToken(token)) : undefined;
      if (!row || row.used_at !== null) throw new ApiError('not_found', 'This link does not exist or has already been used.');
      if (Number(row.expires_at) <= now()) throw new ApiError('invite_expired', 'This link has expired: ask for a new one.');
    },

    /** Sets the password, voids the account's other links and ends its sessions; the link works once. */
    async reset(token: string, password: string): Promise<void> {
      await this.check(token);
      const hash = await hashPassword(parseInput(z.object({ password: Password }), { password }).password);
      await store.transaction(async (s) => {
        const userId = await s.usePasswordReset(hashToken(token), now());
        const user = userId ? await s.findUserById(userId) : undefined;
        if (!user || !mayGetPasswordByReset(user)) throw new ApiError('not_found', 'This link does not exist or has already been used.');
        await s.setPassword(user.id, hash);
        await s.deletePasswordResetsOf(user.id);
        await s.deleteSessionsOf(user.id);
      });
    },
  };
}
export type PasswordResets = ReturnType<typeof createPasswordResets>;

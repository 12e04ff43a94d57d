/**
 * Dashboard sessions. A login gets a random token (the cookie's value); only its SHA-256 is
 * stored. A session ends after `idleMs` without use (each use slides it on) and in any case
 * `absoluteMs` after login; log out deletes it, log out everywhere deletes all of the user's.
 *
 * The last-seen time is written at most once per `touchEveryMs`, so a page view does not cost a
 * write each time.
 *
 * @example
 * const sessions = createSessions({ store, now: Date.now });
 * const { token } = await sessions.start(user.id);      // set as the cookie
 * const found = await sessions.resolve(token);           // { session, user } | null
 * await sessions.revokeAll(user.id);
 */
import { hashToken, newToken } from './tokens.js';
import type { SessionRow, UserRow, UserStore } from './store.js';

export interface SessionOptions {
  /** Idle timeout (default 7 days). */
  idleMs?: number;
  /** Longest life of a session whatever its use (default 30 days). */
  absoluteMs?: number;
  /** Minimum time between two writes of `last_seen_at` (default 60 s). */
  touchEveryMs?: number;
}

const DAY = 24 * 60 * 60 * 1000;
export const SESSION_DEFAULTS: Required<SessionOptions> = { idleMs: 7 * DAY, absoluteMs: 30 * DAY, touchEveryMs: 60_000 };

/** How recent a fresh sign-in must be for a change that asks for one (an email change). */
export const REAUTH_WINDOW_MS = 5 * 60 * 1000;

export interface ResolvedSession {
  session: SessionRow;
  user: UserRow;
}

export function createSessions({ store, now, ...options }: { store: UserStore; now: () => number } & SessionOptions) {
  const settings = { ...SESSION_DEFAULTS, ...options };
  return {
    settings,

    /** `ssoIdToken`: the session comes from single sign-on (its ID token is the hint of the provider's logout). */
    async start(userId: string, { ssoIdToken = null }: { ssoIdToken?: string | null } = {}): Promise<{ token: string; session: SessionRow }> {
      const token = newToken();
      const t = now();
      const session: SessionRow = {
        token_hash: hashToken(token),
        user_id: userId,
        created_at: t,
        last_seen_at: t,
        absolute_expires_at: t + settings.absoluteMs,
        expires_at: Math.min(t + settings.idleMs, t + settings.absoluteMs),
        sso_id_token: ssoIdToken,
        reauthenticated_at: null,
      };
      await store.insertSession(session);
      return { token, session };
    },

    /** The live session of this cookie value and its user, or null (unknown, expired, revoked). */
    async resolve(token: string): Promise<ResolvedSession | null> {
      if (!token || token.length > 100) return null;
      const hash = hashToken(token);
      const session = await store.findSession(hash);
      const t = now();
      if (!session) return null;
      if (session.expires_at <= t) {
        await store.deleteSession(hash);
        return null;
      }
      const user = await store.findUserById(session.user_id);
      if (!user) return null;
      if (t - session.last_seen_at >= settings.touchEveryMs) {
        const expires = Math.min(t + settings.idleMs, session.absolute_expires_at);
        await store.touchSession(hash, t, expires);
        session.last_seen_at = t;
        session.expires_at = expires;
      }
      return { session, user };
    },

    /** Records that the session's user just signed in again at the provider (sso/service.ts). */
    markReauthenticated: (session: SessionRow) => store.setReauthenticated(session.token_hash, now()),

    /** Whether the session's user signed in again at the provider within `withinMs` (an email change asks, 5 minutes). */
    recentlyReauthenticated: (session: SessionRow, withinMs = REAUTH_WINDOW_MS): boolean =>
      session.reauthenticated_at !== null && now() - session.reauthenticated_at <= withinMs,

    revoke: (token: string) => store.deleteSession(hashToken(token)),
    /** Ends every session of the user (log out everywhere, a password reset). */
    revokeAll: (userId: string) => store.deleteSessionsOf(userId),
    sweep: () => store.deleteExpiredSessions(now()),
  };
}

export type Sessions = ReturnType<typeof createSessions>;

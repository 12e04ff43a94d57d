/**
 * Single sign-on's rules: a sign-in starts here (`begin`: the checks kept for the callback, the
 * provider's address) and ends here (`complete`: the ID token validated by provider.ts, the
 * person found, linked or created by the decisions of decide.ts, memberships set from the role
 * claim), each change recorded in the audit log in its transaction. Reauthentication (an account
 * change asking for a fresh sign-in) is the same round trip bound to the session that asked.
 *
 * @example
 * const { browserToken, url } = await sso.begin({ next: '/dashboard' });  // cookie wm_sso, then redirect
 * const outcome = await sso.complete({ browserToken, callbackUrl, ip, session: null });
 * // { kind: 'signed_in', user, idToken, next }
 */
import type { Kysely } from 'kysely';
import * as oidc from 'openid-client';
import type { OidcSettings } from '../config.js';
import type { Database } from '../db/tables.js';
import { record, type Who } from '../audit/record.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { NO_PASSWORD } from '../users/password.js';
import { Email, emailKey, parseInput } from '../users/schema.js';
import { hashToken, newToken } from '../users/tokens.js';
import type { Role } from '../users/roles.js';
import type { SessionRow, UserQueries, UserRow, UserStore } from '../users/store.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { decideSignIn, identityOf, planMemberships, rolesFromClaim, type Identity } from './decide.js';
import { ProviderUnavailable, type OidcProvider } from './provider.js';
import { insertIdentity, type SsoStore } from './store.js';

/** How long a started sign-in waits for the provider's answer. */
export const SIGN_IN_TTL_MS = 10 * 60 * 1000;

export interface SsoServiceDeps {
  settings: OidcSettings;
  provider: OidcProvider;
  store: SsoStore;
  users: UserStore;
  workspaces: Pick<WorkspaceService, 'findWorkspace' | 'listWorkspaces'>;
  now: () => number;
  /** Where the provider's refusals and skipped changes are told (never tokens). */
  log?: (message: string, details: Record<string, unknown>) => void;
}

export type SignInOutcome =
  | { kind: 'signed_in'; user: UserRow; idToken: string; next: string }
  | { kind: 'reauthenticated'; next: string };

export function createSsoService({ settings, provider, store, users, workspaces, now, log = () => {} }: SsoServiceDeps) {
  /** The workspace id → role the claim asks for (slugs of no workspace skipped), or null. */
  async function claimedRoles(claims: Record<string, unknown>): Promise<Map<string, Role> | null> {
    if (!settings.roleClaim) return null;
    const bySlug = rolesFromClaim(claims[settings.roleClaim]);
    if (!bySlug) return null;
    const byId = new Map<string, Role>();
    for (const [slug, role] of bySlug) {
      const workspace = await workspaces.findWorkspace(slug);
      if (workspace?.slug === slug) byId.set(workspace.id, role);
      else log('sso role claim names no workspace', { slug });
    }
    return byId;
  }

  async function defaultWorkspaceId(): Promise<string> {
    if (settings.defaultWorkspace) {
      const workspace = await workspaces.findWorkspace(settings.defaultWorkspace);
      if (!workspace) throw new ApiError('conflict', `OIDC_DEFAULT_WORKSPACE names no workspace (${settings.defaultWorkspace}): ask the operator to correct it.`);
      return workspace.id;
    }
    const [first] = await workspaces.listWorkspaces();
    if (!first) throw new ApiError('conflict', 'Waymark has no workspace yet: its first owner sets it up with the setup address.');
    return first.id;
  }

  /** Makes the memberships what the claim says; a change that would leave a workspace without an owner is skipped. */
  async function applyClaim(s: UserQueries, trx: Kysely<Database>, user: UserRow, wanted: Map<string, Role>, who: Who): Promise<void> {
    const current = new Map((await s.workspacesOf(user.id)).map((w) => [w.id, w.role]));
    for (const change of planMemberships(current, wanted)) {
      if (change.from === 'owner' && change.to !== 'owner' && (await s.countOwners(change.workspaceId)) <= 1) {
        log('sso role claim would leave a workspace without an owner: kept', { workspaceId: change.workspaceId, userId: user.id });
        continue;
      }
      if (change.to === null) await s.deleteMembership(user.id, change.workspaceId);
      else await s.upsertMembership(user.id, change.workspaceId, change.to, now());
      const action = change.from === null ? 'member.add' : change.to === null ? 'member.remove' : 'member.role';
      await record(trx, who, { workspaceId: change.workspaceId, action, targetIds: user.id, changes: { role: change.to, via: 'sso' }, actor: { type: 'user', id: user.id } }, now());
    }
  }

  /** The person of a validated ID token: found, linked or created, with the claim's memberships. */
  async function personOf(identity: Identity, claims: Record<string, unknown>, ip: string | null, expectedUserId?: string): Promise<UserRow> {
    const linkedUserId = (await store.userOfIdentity(identity.issuer, identity.subject)) ?? null;
    const userByEmail = identity.email ? ((await users.findUserByEmailKey(emailKey(identity.email).slice(0, 254))) ?? null) : null;
    const decision = decideSignIn(identity, { linkedUserId, userByEmail }, settings);
    if (decision.kind === 'refuse') {
      log('sso sign-in refused', { reason: decision.reason, issuer: identity.issuer, subject: identity.subject });
      throw new ApiError('forbidden', decision.message);
    }
    // A reauthentication proves the session's user; it never creates or links anyone else.
    if (expectedUserId !== undefined && (decision.kind === 'create' || decision.userId !== expectedUserId)) {
      throw new ApiError('forbidden', 'You signed in at the provider as another person than the one logged in here.');
    }
    const wanted = await claimedRoles(claims);
    // Read before the transaction: on SQLite the transaction holds the one connection.
    const joins = decision.kind === 'create' ? (wanted && wanted.size > 0 ? wanted : new Map([[await defaultWorkspaceId(), settings.defaultRole]])) : null;
    const who: Who = { actor: null, ip };
    return users.transaction(async (s, trx) => {
      let user: UserRow | undefined;
      if (decision.kind === 'create') {
        const email = parseInput(Email, decision.email);
        user = { id: newId('user', now()), email, email_key: emailKey(email), name: decision.name, password_hash: NO_PASSWORD, created_at: now(), password_allowed_at: null };
        await s.insertUser(user);
        for (const [workspaceId, role] of joins!) {
          await s.upsertMembership(user.id, workspaceId, role, now());
          await record(trx, who, { workspaceId, action: 'member.join', targetIds: user.id, changes: { email, role, via: 'sso' }, actor: { type: 'user', id: user.id } }, now());
        }
      } else {
        user = await s.findUserById(decision.userId);
        if (!user) throw new ApiError('forbidden', 'The account this sign-in belongs to was removed.');
        if (wanted) await applyClaim(s, trx, user, wanted, who);
      }
      if (decision.kind !== 'known') await insertIdentity(trx, { issuer: identity.issuer, subject: identity.subject, user_id: user.id, created_at: now() });
      return user;
    });
  }

  return {
    settings,

    /**
     * Starts a sign-in: the checks (state, nonce, PKCE verifier) are kept server-side under the
     * hash of a random browser token, which the route sets as a short-lived cookie, so only the
     * browser that started it can finish it, once. `reauthSession`: the session asking for a
     * fresh sign-in (the provider is told to ask again: prompt=login, max_age=0).
     */
    async begin({ next, reauthSession }: { next: string; reauthSession?: SessionRow }): Promise<{ browserToken: string; url: string }> {
      const browserToken = newToken();
      const checks = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier(), fresh: !!reauthSession };
      const url = await provider.authorizationUrl(checks).catch(unavailable);
      await store.sweepLogins(now() - SIGN_IN_TTL_MS);
      await store.insertLogin({
        browser_hash: hashToken(browserToken),
        state: checks.state,
        nonce: checks.nonce,
        code_verifier: checks.codeVerifier,
        next,
        reauth_session: reauthSession?.token_hash ?? null,
        created_at: now(),
      });
      return { browserToken, url };
    },

    /**
     * Ends a sign-in at the provider's callback. 400 without a pending sign-in of this browser; 403
     * when refused. A callback that does not verify (a forged state, someone else's code, the
     * provider's error) leaves the pending sign-in as it was, so a link an attacker sends cannot
     * cancel the person's own; the one that verifies uses it up before anything else happens.
     */
    async complete({ browserToken, callbackUrl, ip, session }: { browserToken: string | undefined; callbackUrl: URL; ip: string | null; session: SessionRow | null }): Promise<SignInOutcome> {
      const browserHash = browserToken ? hashToken(browserToken) : null;
      const login = browserHash ? await store.findLogin(browserHash) : undefined;
      if (!login || login.created_at < now() - SIGN_IN_TTL_MS) throw expired();
      const providerError = callbackUrl.searchParams.get('error');
      if (providerError) throw new ApiError('forbidden', `The identity provider did not sign you in (${providerError.slice(0, 100)}).`);
      const checks = { state: login.state, nonce: login.nonce, codeVerifier: login.code_verifier, fresh: login.reauth_session !== null };
      let result;
      try {
        result = await provider.exchange(callbackUrl, checks);
      } catch (err) {
        if (err instanceof ProviderUnavailable) throw unavailable(err);
        // A forged state, a used code, another audience, an expired or badly signed token: the library's words, logged.
        log('sso sign-in not verified', { error: (err as Error).message, code: (err as { code?: string }).code });
        throw new ApiError('forbidden', 'The sign-in could not be verified. Start again from the login page.');
      }
      // Verified: used once (a second callback racing this one finds it gone).
      if (!(await store.takeLogin(browserHash!))) throw expired();
      const { claims, idToken } = result;
      const identity = identityOf(claims);
      if (login.reauth_session !== null) {
        if (!session || session.token_hash !== login.reauth_session) throw new ApiError('forbidden', 'This sign-in was asked for by another session. Start again.');
        await personOf(identity, claims, ip, session.user_id);
        return { kind: 'reauthenticated', next: login.next };
      }
      return { kind: 'signed_in', user: await personOf(identity, claims, ip), idToken, next: login.next };
    },

    /** The provider's logout address for a session that came from SSO, or null. */
    endSessionUrl: (idToken: string, postLogoutRedirectUri: string) => provider.endSessionUrl(idToken, postLogoutRedirectUri),
  };
}

const expired = () => new ApiError('bad_request', 'This sign-in has expired or was already used. Start again from the login page.');

function unavailable(err: unknown): never {
  throw new ApiError('service_unavailable', err instanceof ProviderUnavailable ? err.message : 'The identity provider could not be reached. Try again in a moment.');
}

export type SsoService = ReturnType<typeof createSsoService>;

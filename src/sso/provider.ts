/**
 * The OpenID Connect relying party, through `openid-client` (no JWT code of ours): discovery of
 * the issuer at first use (cached; a failed discovery is tried again at the next sign-in), the
 * authorization URL with PKCE (S256), `state` and `nonce`, the code exchange with the ID token's
 * checks (issuer, audience, expiry, nonce, and its signature against the provider's JWKS, which
 * the library fetches again for an unknown `kid`: key rotation), the userinfo endpoint when the ID
 * token lacks a claim Waymark reads (`claimsNeeded`), and the logout URL.
 *
 * A provider that follows OpenID Connect Core (§5.4) answers the `email` and `profile` scopes at
 * its userinfo endpoint, not in the ID token, whenever it issues an access token (the code flow):
 * oidc-provider's default, Keycloak's option. The claims then come from userinfo, whose `sub` must
 * be the ID token's (§5.3.2: openid-client checks it); the ID token's own claims win where both say.
 *
 * The library's clock is the app's (`now`, its offset from the system clock taken at discovery), so tests can move it.
 *
 * @example
 * const provider = createOidcProvider(config.oidc, { redirectUri: `${baseUrl}/dashboard/sso/callback`, now: Date.now });
 * const url = await provider.authorizationUrl({ state, nonce, codeVerifier });
 * const { claims, idToken } = await provider.exchange(new URL(request.url, baseUrl), { state, nonce, codeVerifier });
 */
import * as oidc from 'openid-client';
import type { OidcSettings } from '../config.js';

export interface SignInChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Ask for a fresh sign-in at the provider (`prompt=login`, `max_age=0`), and check its `auth_time`. */
  fresh?: boolean;
}

export interface ExchangeResult {
  /** The ID token's validated claims, with those it lacks from userinfo when they were needed. */
  claims: oidc.IDToken;
  /** The ID token itself: the hint of the provider's logout. */
  idToken: string;
}

export interface OidcProvider {
  authorizationUrl(checks: SignInChecks): Promise<string>;
  exchange(callbackUrl: URL, checks: SignInChecks): Promise<ExchangeResult>;
  /** The provider's logout address for a session of `idToken`, or null when it offers none. */
  endSessionUrl(idToken: string, postLogoutRedirectUri: string): Promise<string | null>;
}

/** The provider could not be reached or answered nonsense (not the person's fault: 503). */
export class ProviderUnavailable extends Error {}

const DISCOVERY_TIMEOUT_S = 10;

/**
 * The claims Waymark reads that the ID token lacks (pure): the person's address and name, and the
 * role claim when one is set. Userinfo is asked for only then.
 */
export function claimsNeeded(idToken: Record<string, unknown>, roleClaim?: string): string[] {
  return ['email', 'name', ...(roleClaim ? [roleClaim] : [])].filter((claim) => idToken[claim] === undefined);
}

export function createOidcProvider(settings: OidcSettings, { redirectUri, now }: { redirectUri: string; now: () => number }): OidcProvider {
  let discovered: Promise<oidc.Configuration> | null = null;
  const insecure = new URL(settings.issuer).protocol === 'http:';

  function configuration(): Promise<oidc.Configuration> {
    discovered ??= oidc
      .discovery(new URL(settings.issuer), settings.clientId, { redirect_uris: [redirectUri], [oidc.clockSkew]: clockSkew() }, oidc.ClientSecretBasic(settings.clientSecret), {
        timeout: DISCOVERY_TIMEOUT_S,
        // http is allowed only for a loopback issuer (config.ts): a provider in tests or on the same machine.
        execute: insecure ? [oidc.allowInsecureRequests] : [],
      })
      .then((config) => {
        // The ID token's signature is checked against the JWKS too, not only the TLS of the token endpoint.
        oidc.enableNonRepudiationChecks(config);
        return config;
      })
      .catch((err: unknown) => {
        discovered = null;
        throw new ProviderUnavailable(`The identity provider could not be reached (${(err as Error).message}).`);
      });
    return discovered;
  }

  // openid-client's clock is Date.now() + clockSkew (seconds, fixed with the configuration): make it the app's.
  const clockSkew = () => Math.round((now() - Date.now()) / 1000);

  return {
    async authorizationUrl({ state, nonce, codeVerifier, fresh }) {
      const config = await configuration();
      const parameters: Record<string, string> = {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      };
      if (fresh) Object.assign(parameters, { prompt: 'login', max_age: '0' });
      return oidc.buildAuthorizationUrl(config, parameters).href;
    },

    async exchange(callbackUrl, { state, nonce, codeVerifier, fresh }) {
      const config = await configuration();
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: codeVerifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
        // A fresh sign-in asked for max_age=0: auth_time must be now (within the library's tolerance).
        ...(fresh ? { maxAge: 0 } : {}),
      });
      const claims = tokens.claims();
      if (!claims || !tokens.id_token) throw new Error('The provider sent no ID token.');
      if (claimsNeeded(claims, settings.roleClaim).length === 0 || !config.serverMetadata().userinfo_endpoint) return { claims, idToken: tokens.id_token };
      // Throws when userinfo's `sub` is not the ID token's (another person's answer).
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      return { claims: { ...userinfo, ...claims }, idToken: tokens.id_token };
    },

    async endSessionUrl(idToken, postLogoutRedirectUri) {
      let config;
      try {
        config = await configuration();
      } catch {
        return null;
      }
      if (!config.serverMetadata().end_session_endpoint) return null;
      return oidc.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: postLogoutRedirectUri }).href;
    },
  };
}

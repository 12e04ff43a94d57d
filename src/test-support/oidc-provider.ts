/**
 * A real OpenID Connect provider in the test process (`oidc-provider` 9, the certified
 * implementation; runs on Node 20 and 24) on 127.0.0.1, for the single sign-on tests: one confidential
 * client (`client_secret_basic`, PKCE required), a few accounts, its own login pages
 * (devInteractions: any password), RP-initiated logout, and consent granted in advance (a
 * first-party client). `signIn` drives its login form over HTTP and returns the address the
 * browser would be sent back to; `rotateKeys` restarts it on the same address with a new signing
 * key (the old one gone from its JWKS); `tamperIdToken` re-signs the next ID token with the
 * provider's own key after changing its claims (another audience, say); `tamperUserinfo` changes
 * the next userinfo answer.
 *
 * By default it is configured as oidc-provider ships, conformant to OpenID Connect Core: in the
 * code flow the `email` and `profile` claims come from the userinfo endpoint only, the ID token
 * holding little more than `sub`. `claimsInIdToken: true` puts them in the ID token as well
 * (`conformIdTokenClaims: false`), as many providers do. *
 * @example
 * const idp = await startOidcProvider({ redirectUri: 'http://localhost:3999/dashboard/sso/callback' });
 * const callback = await idp.signIn(authorizationUrl, 'ann');   // …/callback?code=…&state=…
 * await idp.close();
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  email_verified: boolean;
  name: string;
  /** Values of the `groups` claim (the role claim's tests). */
  groups?: string[];
}

export const ACCOUNTS: Record<string, TestAccount> = {
  ann: { email: 'ann@example.com', email_verified: true, name: 'Ann Admin' },
  bob: { email: 'bob@other.test', email_verified: true, name: 'Bob Other' },
  una: { email: 'una@example.com', email_verified: false, name: 'Una Unverified' },
};

export const CLIENT = { id: 'waymark', secret: 'waymark-test-secret-0123456789' };

export interface OidcTestProvider {
  issuer: string;
  accounts: Record<string, TestAccount>;
  /** Follows `authorizationUrl` through the login page as `accountId`; the redirect back to the app. */
  signIn(authorizationUrl: string, accountId: string): Promise<URL>;
  /** A new signing key; the old one leaves the JWKS (the provider restarts on the same port). */
  rotateKeys(): Promise<void>;
  /** Registers the client's redirect URI anew (a browser test learns its server's port after the provider starts). */
  setRedirectUri(redirectUri: string): void;
  /** The `kid` of the current signing key. */
  kid(): string;
  /** Changes the claims of the next ID token the token endpoint returns, re-signed with the current key. */
  tamperIdToken(change: (claims: Record<string, unknown>) => Record<string, unknown>): void;
  /** Changes the next answer of the userinfo endpoint. */
  tamperUserinfo(change: (claims: Record<string, unknown>) => Record<string, unknown>): void;
  /** How many userinfo requests the provider answered. */
  userinfoRequests(): number;
  close(): Promise<void>;
}

async function signingKey(): Promise<{ jwk: JWK; privateKey: CryptoKey }> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: `k-${Math.random().toString(36).slice(2, 10)}` };
  return { jwk, privateKey };
}

export async function startOidcProvider(options: { redirectUri: string; claimsInIdToken?: boolean }): Promise<OidcTestProvider> {
  let redirectUri = options.redirectUri;
  const postLogoutRedirectUri = () => new URL('/dashboard/login', redirectUri).href;
  const accounts = structuredClone(ACCOUNTS);
  let key = await signingKey();
  let tamper: ((claims: Record<string, unknown>) => Record<string, unknown>) | null = null;
  let tamperInfo: ((claims: Record<string, unknown>) => Record<string, unknown>) | null = null;
  let userinfoRequests = 0;
  let server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}`;

  function build(): Provider {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: CLIENT.id,
          client_secret: CLIENT.secret,
          redirect_uris: [redirectUri],
          post_logout_redirect_uris: [postLogoutRedirectUri()],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [key.jwk] },
      async findAccount(_ctx, id) {
        const account = accounts[id];
        if (!account) return undefined;
        return { accountId: id, claims: async () => ({ sub: id, ...account }) };
      },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
      conformIdTokenClaims: !options.claimsInIdToken,
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
      pkce: { required: () => true }, // S256, the only method oidc-provider 9 offers
      // A first-party client: consent is granted in advance.
      async loadExistingGrant(ctx) {
        const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
      cookies: { keys: ['test-cookie-key-0123456789'] },
    });
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.path === '/me' && ctx.status === 200) {
        userinfoRequests++;
        if (tamperInfo) {
          const change = tamperInfo;
          tamperInfo = null;
          ctx.body = change(ctx.body as Record<string, unknown>);
        }
      }
      const body = ctx.body as { id_token?: string } | undefined;
      if (ctx.path === '/token' && tamper && body?.id_token) {
        const change = tamper;
        tamper = null;
        const claims = change(decodeJwt(body.id_token) as Record<string, unknown>);
        body.id_token = await new SignJWT(claims).setProtectedHeader({ ...decodeProtectedHeader(body.id_token), alg: 'RS256', kid: key.jwk.kid! }).sign(key.privateKey);
      }
    });
    return provider;
  }

  let provider = build();
  server.on('request', provider.callback());

  async function stop(): Promise<void> {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }

  return {
    issuer,
    accounts,
    async signIn(authorizationUrl, accountId) {
      const cookies = new Map<string, string>();
      const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const keep = (res: Response) => {
        for (const line of res.headers.getSetCookie()) {
          const [pair] = line.split(';');
          const eq = pair!.indexOf('=');
          cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
      };
      let url = new URL(authorizationUrl);
      let form: URLSearchParams | null = null;
      for (let hop = 0; hop < 10; hop++) {
        const res = await fetch(url, {
          method: form ? 'POST' : 'GET',
          redirect: 'manual',
          headers: { cookie: cookieHeader(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
          body: form?.toString(),
        });
        keep(res);
        form = null;
        const location = res.headers.get('location');
        if (location) {
          const next = new URL(location, url);
          if (next.origin !== issuer) return next;
          url = next;
          continue;
        }
        const html = await res.text();
        const action = /<form[^>]*action="([^"]+)"[^>]*method="post"/.exec(html)?.[1];
        if (res.status !== 200 || !action || !html.includes('name="login"')) throw new Error(`unexpected provider answer ${res.status}: ${html.slice(0, 300)}`);
        url = new URL(action, url);
        form = new URLSearchParams({ prompt: 'login', login: accountId, password: 'any' });
      }
      throw new Error('too many hops at the provider');
    },
    async rotateKeys() {
      await stop();
      key = await signingKey();
      provider = build();
      server = createServer(provider.callback());
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    setRedirectUri(uri) {
      redirectUri = uri;
      provider = build();
      server.removeAllListeners('request');
      server.on('request', provider.callback());
    },
    kid: () => key.jwk.kid!,
    tamperIdToken(change) {
      tamper = change;
    },
    tamperUserinfo(change) {
      tamperInfo = change;
    },
    userinfoRequests: () => userinfoRequests,
    close: stop,
  };
}

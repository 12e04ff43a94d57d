/**
 * Single sign-on with OpenID Connect (issue 30), built by app.ts when OIDC_ISSUER is set: the
 * relying party (provider.ts, openid-client), the decisions (decide.ts), the SQL (store.ts) and
 * the rules (service.ts). The dashboard's routes (dashboard/routes/sso.tsx) call it.
 *
 * @example
 * const sso = config.oidc ? createSsoModule(ctx, config.oidc) : undefined;
 */
import type { Kysely } from 'kysely';
import type { OidcSettings } from '../config.js';
import type { Database } from '../db/tables.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { createUserStore } from '../users/store.js';
import { createOidcProvider } from './provider.js';
import { createSsoService } from './service.js';
import { createSsoStore } from './store.js';

export const CALLBACK_PATH = '/dashboard/sso/callback';

export function createSsoModule(
  settings: OidcSettings,
  { db, baseUrl, workspaces, now, log }: { db: Kysely<Database>; baseUrl: string; workspaces: Pick<WorkspaceService, 'findWorkspace' | 'listWorkspaces'>; now: () => number; log?: (message: string, details: Record<string, unknown>) => void },
) {
  const provider = createOidcProvider(settings, { redirectUri: `${baseUrl}${CALLBACK_PATH}`, now });
  return createSsoService({ settings, provider, store: createSsoStore(db), users: createUserStore(db), workspaces, now, log });
}

export type SsoModule = ReturnType<typeof createSsoModule>;

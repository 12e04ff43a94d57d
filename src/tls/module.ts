/**
 * Certificates on demand (docs/deploy.md): `GET /tls/allow` answers a TLS terminator from the
 * in-memory allow list (allow-list.ts), which follows domain changes on the change bus.
 *
 * @example
 * const tls = createTlsModule(ctx, { onError: (err, msg) => log.warn({ err }, msg) });
 * await app.register(tls.routes); await tls.lifecycle.start();
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { Lifecycle } from '../lifecycle.js';
import { createTlsAllowList } from './allow-list.js';
import { fixedCertificateNames } from './host-name.js';
import { createTlsStore } from './store.js';
import { tlsRoutes } from './routes.js';
import { unverifiedTlsWarning, type TlsSign } from './unverified-warning.js';

export function createTlsModule(ctx: Pick<AppContext, 'config' | 'database' | 'bus'>, options: { onError(err: unknown, context: string): void; warn?(message: string): void; refreshMs?: number }) {
  const store = createTlsStore(ctx.database.db);
  // DOMAIN_VERIFICATION=off: the operator trusts every key holder's domains (docs/domains.md).
  const verifiedOnly = ctx.config.domainVerification !== 'off';
  const list = createTlsAllowList({
    fixed: fixedCertificateNames(ctx.config),
    loadAll: () => store.slugs(verifiedOnly),
    loadOne: (slug) => store.allows(slug, verifiedOnly),
    refreshMs: options.refreshMs,
    onError: options.onError,
  });
  // Stored slugs are lower-case already; a change names the stored slug.
  const unsubscribe = ctx.bus.subscribe((change) => {
    if (change.type === 'domain') void list.changed(change.domain.toLowerCase());
  });
  // Domain changes may have been missed (the relay reconnected): reload the whole list now.
  const unsubscribeResync = ctx.bus.onResync(() => void list.reload());
  // Warned once per process: at start when HTTPS is served, else at the first question.
  let warned = false;
  const httpsServed = ctx.config.shortLinkProtocol === 'https' || ctx.config.baseUrl.startsWith('https:');
  async function warnIfUnverified(tls: TlsSign): Promise<void> {
    if (warned || verifiedOnly || !options.warn || tls === 'none') return;
    try {
      const message = unverifiedTlsWarning({ verification: ctx.config.domainVerification, workspaces: await store.workspaceCount(), tls });
      if (message && !warned) {
        warned = true;
        options.warn(message);
      }
    } catch (err) {
      options.onError(err, 'unverified-domains check failed');
    }
  }
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(tlsRoutes, { list, onAsk: () => void warnIfUnverified('asked') });
  };
  const lifecycle: Lifecycle = {
    start: async () => {
      await list.start();
      await warnIfUnverified(httpsServed ? 'https-served' : 'none');
    },
    close: () => {
      list.close();
      unsubscribe();
      unsubscribeResync();
    },
  };
  return { routes, lifecycle, list, warnIfUnverified };
}
export type TlsModule = ReturnType<typeof createTlsModule>;

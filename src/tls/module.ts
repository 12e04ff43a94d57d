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

export function createTlsModule(ctx: Pick<AppContext, 'config' | 'database' | 'bus'>, options: { onError(err: unknown, context: string): void; refreshMs?: number }) {
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
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(tlsRoutes, { list });
  };
  const lifecycle: Lifecycle = {
    start: () => list.start(),
    close: () => {
      list.close();
      unsubscribe();
    },
  };
  return { routes, lifecycle, list };
}
export type TlsModule = ReturnType<typeof createTlsModule>;

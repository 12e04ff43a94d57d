/**
 * Links module: the /links API, and the read API the redirect server may use.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { createLinkStore, type LinkRow } from './store.js';
import { createLinkService } from './service.js';
import { linkRoutes } from './routes.js';

export function createLinksModule(ctx: AppContext) {
  const { db, dialect } = ctx.database;
  const store = createLinkStore(db, dialect);
  const service = createLinkService({ db, dialect, store, bus: ctx.bus, now: ctx.now, config: ctx.config, outbox: ctx.outbox });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(linkRoutes, { links: service });
  };
  return {
    routes,
    service,
    /**
     * The link at `domain/key` whatever its workspace: the redirect lookup (a visitor has no
     * workspace; keys are unique per domain across the service). `key` as it appears in the
     * decoded path: it is punycoded and compared without regard to case. Cache the answer and
     * drop it on the `{ type: 'link', domain, key }` changes of `ctx.bus` (keys are announced as
     * stored; compare them lower-cased).
     */
    findByDomainKey: (domain: string, key: string): Promise<LinkRow | undefined> => service.findByDomainKey(domain, key),
  };
}
export type LinksModule = ReturnType<typeof createLinksModule>;

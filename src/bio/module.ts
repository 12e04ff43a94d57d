/**
 * Bio pages module (issue 44): the service the dashboard's editor calls and the public pages the
 * redirect handler serves first (`/@handle`, a chosen domain root). No API routes: the published
 * API has no bio pages.
 */
import type { AppContext } from '../context.js';
import { createBioStore } from './store.js';
import { createBioService } from './service.js';
import { createBioPublic } from './public.js';
import { createLineLogger, toStderr } from '../log-line.js';

export function createBioModule(ctx: AppContext, options: { onChange?: () => void } = {}) {
  const store = createBioStore(ctx.database.db);
  const log = createLineLogger(ctx.config.logLevel, toStderr);
  const onError = (err: unknown, context: string) => log('error', context, { err: err instanceof Error ? err.message : String(err) });
  const pages = createBioPublic(store, { onError });
  const service = createBioService(store, ctx.database.dialect, { sharedDomain: ctx.config.shortDomain, now: ctx.now, onChange: () => {
    pages.invalidate();
    options.onChange?.();
  } });
  return { service, pages, lifecycle: pages.lifecycle };
}
export type BioModule = ReturnType<typeof createBioModule>;

/**
 * UTM templates module: the service the dashboard's settings tab and link builder call. No API
 * routes: the published API has no UTM templates.
 */
import type { AppContext } from '../context.js';
import { createUtmTemplateStore } from './store.js';
import { createUtmTemplateService } from './service.js';

export function createUtmTemplatesModule(ctx: AppContext) {
  return { service: createUtmTemplateService(createUtmTemplateStore(ctx.database.db), ctx.database.dialect, ctx.now) };
}
export type UtmTemplatesModule = ReturnType<typeof createUtmTemplatesModule>;

/**
 * Redirect module (stub until the redirect issue lands): short-link redirects and click recording.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext, Lifecycle } from '../context.js';
import type { LinksModule } from '../links/module.js';

/** A click as the tracking module needs it, whether flushed yet or not. */
export interface ClickLookup {
  findClick(workspaceId: string, clickId: string): Promise<{ clickId: string; linkId: string } | undefined>;
}

export function createRedirectModule(_ctx: AppContext, _deps: { links: LinksModule }) {
  /** Handles the request when its Host is a short-link domain; returns false for API hosts. */
  const tryHandle = (_req: IncomingMessage, _res: ServerResponse): boolean => false;
  const clicks: ClickLookup = { findClick: async () => undefined };
  const lifecycle: Lifecycle = {};
  return { tryHandle, clicks, lifecycle };
}
export type RedirectModule = ReturnType<typeof createRedirectModule>;

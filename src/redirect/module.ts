/**
 * Redirect module (stub until the redirect issue lands): short-link redirects and click recording.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext, Lifecycle } from '../context.js';
import type { LinksModule } from '../links/module.js';
import type { StoredEvent } from '../analytics/event-writer.js';

/**
 * Finds a click of a workspace by its id, whether already flushed to the database or still in the
 * in-memory batch (a lead may arrive milliseconds after its click). Returns the click event row,
 * whose dimensions (country, device, …) lead and sale events copy.
 */
export interface ClickLookup {
  findClick(workspaceId: string, clickId: string): Promise<StoredEvent | undefined>;
}

export function createRedirectModule(_ctx: AppContext, _deps: { links: LinksModule }) {
  /** Handles the request when its Host is a short-link domain; returns false for API hosts. */
  const tryHandle = (_req: IncomingMessage, _res: ServerResponse): boolean => false;
  const clicks: ClickLookup = { findClick: async () => undefined };
  const lifecycle: Lifecycle = {};
  return { tryHandle, clicks, lifecycle };
}
export type RedirectModule = ReturnType<typeof createRedirectModule>;

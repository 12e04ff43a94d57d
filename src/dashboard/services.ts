/**
 * The API's services the dashboard's pages call (issue 17), and the API caller a dashboard user
 * stands for. Pages go through exactly these services so their rules (ranges, filters, plans,
 * workspace scoping) are the API's, never a copy.
 *
 * @example
 * const rows = await services.analytics.retrieve(apiCallerOf(page), { event: 'composite', groupBy: 'countries' });
 */
import type { AnalyticsService } from '../analytics/service.js';
import type { AbTestService } from '../ab-tests/service.js';
import type { JourneyService } from '../journeys/service.js';
import type { CustomerService } from '../customers/service.js';
import type { DomainService } from '../domains/service.js';
import type { FolderService } from '../folders/service.js';
import type { TagService } from '../tags/service.js';
import type { WebhookService } from '../webhooks/service.js';
import type { UtmTemplateService } from '../utm-templates/service.js';
import type { AuthContext } from '../workspaces/service.js';
import type { WorkspaceRow } from '../workspaces/store.js';

export interface PageServices {
  analytics: AnalyticsService;
  customers: CustomerService;
  domains: DomainService;
  tags: TagService;
  folders: FolderService;
  webhooks: WebhookService;
  utmTemplates: UtmTemplateService;
  abTests: AbTestService;
  journeys: JourneyService;
}

/**
 * The API's `AuthContext` for a dashboard request: the workspace with every permission, because
 * the dashboard's role check (`kit.workspacePage(…, action)`) has already decided what the user
 * may do. No key is involved: `keyId` names the user so nothing mistakes it for a real key.
 */
export function apiCallerOf(page: { workspace: WorkspaceRow; userId: string }): AuthContext {
  return { workspaceId: page.workspace.id, workspace: page.workspace, keyId: `dashboard:${page.userId}`, keyHash: '', permissions: 'all' };
}

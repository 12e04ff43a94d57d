/**
 * Settings → Integrations: the payment providers' addresses and secrets, the latest deliveries,
 * a retry for a skipped one. Reading: any member; saving or removing a secret and retrying:
 * owners (`settings.manage`). The secret goes to the integrations service, which seals it.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ApiError } from '../../http/errors.js';
import type { Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { workspacePath } from '../layout.js';
import { isProvider, type IntegrationsService } from '../../integrations/service.js';
import type { Provider } from '../../integrations/intent.js';
import { PaymentIntegrationsPage, type DeliveryView } from '../pages/settings-payments.js';
import { frameOf, orShow } from './settings.js';

type Params = { slug: string; provider: string };
const iso = (ms: number) => new Date(Number(ms)).toISOString();

function providerOf(name: string): Provider {
  if (!isProvider(name)) throw new ApiError('not_found', 'No such integration.');
  return name;
}

export function paymentIntegrationRoutes(kit: Kit, integrations: IntegrationsService): FastifyPluginAsync {
  const back = (page: WorkspacePage) => workspacePath(page.workspace.slug, '/settings/integrations');

  async function show(reply: FastifyReply, page: WorkspacePage, extra: { error?: string; notice?: string } = {}, status = 200) {
    const { providers, recent } = await integrations.overview(page.workspace.id);
    const deliveries: DeliveryView[] = recent.map((r) => ({ provider: r.provider, eventId: r.event_id, type: r.type, outcome: r.outcome, message: r.message, receivedAt: iso(r.received_at) }));
    return sendPage(
      reply,
      <PaymentIntegrationsPage
        frame={frameOf(page)}
        providers={providers.map((p) => ({ ...p, configuredAt: p.configuredAt === null ? null : iso(p.configuredAt), docs: `docs/integrations/${p.provider}.md` }))}
        deliveries={deliveries}
        {...extra}
      />,
      status,
    );
  }

  return async (app) => {
    app.get<{ Params: { slug: string } }>('/dashboard/w/:slug/settings/integrations', { schema: HIDDEN }, async (request, reply) =>
      show(reply, await kit.workspacePage(request, request.params.slug)),
    );
    app.post<{ Params: Params; Body: Record<string, string | undefined> }>('/dashboard/w/:slug/settings/integrations/:provider', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      const provider = providerOf(request.params.provider);
      return orShow(
        () => integrations.setSecret(page.workspace.id, provider, request.body?.secret ?? '', page.who),
        (errors, status) => show(reply, page, { error: Object.values(errors).join(' ') }, status),
        () => redirect(reply, back(page)),
      );
    });
    app.post<{ Params: Params }>('/dashboard/w/:slug/settings/integrations/:provider/remove', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      await integrations.removeSecret(page.workspace.id, providerOf(request.params.provider), page.who);
      return redirect(reply, back(page));
    });
    app.post<{ Params: Params & { eventId: string } }>('/dashboard/w/:slug/settings/integrations/:provider/events/:eventId/retry', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'settings.manage');
      const result = await integrations.retry(page.workspace.id, providerOf(request.params.provider), request.params.eventId, request.log);
      return show(reply, page, result.outcome === 'recorded' ? { notice: result.message } : { error: result.message });
    });
  };
}

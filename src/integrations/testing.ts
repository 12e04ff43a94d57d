/**
 * Test helpers of the integrations: an app (the harness sets a random SECRETS_KEY), a subscriber that collects
 * the domain events (`sale.created`, `lead.created`), and deliveries posted like the providers'.
 *
 * @example
 * const h = await integrationApp();
 * await h.t.modules.integrations.service.setSecret(h.t.workspaceId, 'stripe', 'whsec_x');
 * const res = await h.post('stripe', body, { 'stripe-signature': header });
 */
import { createTestApp, type TestApp } from '../test-support/harness.js';
import type { DomainEvent } from '../outbox/outbox.js';
import type { Subscriber } from '../outbox/publisher.js';
import type { Provider } from './intent.js';

export interface IntegrationHarness {
  t: TestApp;
  /** Domain events delivered so far, one per id. */
  published: DomainEvent[];
  post(provider: Provider, body: string, headers: Record<string, string>, workspaceId?: string): ReturnType<TestApp['inject']>;
  /** Analytics of the workspace (all time): leads, sales and net sale amount. */
  totals(linkId?: string): Promise<{ leads: number; sales: number; saleAmount: number }>;
  /** Waits until `n` domain events of `type` were delivered. */
  waitFor(type: string, n: number, match?: (e: DomainEvent) => boolean): Promise<DomainEvent[]>;
}

export async function integrationApp(): Promise<IntegrationHarness> {
  const published: DomainEvent[] = [];
  const subscriber: Subscriber = {
    name: 'integrations-test',
    events: ['lead.created', 'sale.created'],
    async deliver(event) {
      if (!published.some((e) => e.id === event.id)) published.push(event);
    },
  };
  const t = await createTestApp({ subscribers: [subscriber] });
  return {
    t,
    published,
    post: (provider, body, headers, workspaceId = t.workspaceId) =>
      t.inject({ method: 'POST', url: `/integrations/${provider}/${workspaceId}`, headers: { 'content-type': 'application/json', authorization: '', ...headers }, payload: body }),
    async totals(linkId) {
      await t.modules.tracking.queue.drain();
      const res = await t.inject({ method: 'GET', url: `/analytics?event=composite&interval=all${linkId ? `&linkId=${linkId}` : ''}` });
      if (res.statusCode !== 200) throw new Error(res.body);
      const { leads, sales, saleAmount } = res.json();
      return { leads, sales, saleAmount };
    },
    async waitFor(type, n, match = () => true) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = published.filter((e) => e.event === type && match(e));
        if (found.length >= n) return found;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} ${type}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

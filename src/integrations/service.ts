/**
 * Receiving a provider's delivery, in order: the workspace's sealed secret, the signature over the
 * raw body (refused with 400 before anything is parsed or stored), the event, a claim on its event
 * id (a replay is answered from the log and records nothing), the shared recording path, and the
 * outcome stored. A failure that may pass (the database) releases the claim and answers 500, so
 * the provider's own retries deliver it again; nothing is acknowledged that was not recorded.
 *
 * @example
 * const answer = await service.receive('stripe', 'ws_1', rawBody, req.headers, req.log);
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../http/errors.js';
import { record, type Who } from '../audit/record.js';
import type { Log } from '../tracking/deps.js';
import { PROVIDERS, type ParsedEvent, type Provider } from './intent.js';
import type { Recorder } from './recorder.js';
import type { SecretBox } from './secret-box.js';
import { verifyPaddle, verifyShopify, verifyStripe, type Verdict } from './signatures.js';
import type { IntegrationEventRow, IntegrationStore, Outcome } from './store.js';
import { parseStripeEvent } from './stripe.js';
import { parseShopifyEvent } from './shopify.js';
import { parsePaddleEvent } from './paddle.js';

/** Longest secret accepted (Stripe's `whsec_…` are ~38 characters, Paddle's and Shopify's ~64). */
export const MAX_SECRET_CHARS = 200;
/** Deliveries shown on the dashboard. */
export const RECENT_EVENTS = 20;

export const PROVIDER_NAMES: Record<Provider, string> = { stripe: 'Stripe', shopify: 'Shopify', paddle: 'Paddle' };

export interface ReceiveAnswer {
  received: true;
  eventId: string;
  outcome: Outcome;
  message: string;
  /** True when this event id was delivered before: nothing was recorded this time. */
  replay: boolean;
}

export interface IntegrationsServiceOptions {
  store: IntegrationStore;
  box: SecretBox;
  recorder: Recorder;
  workspaceExists: (workspaceId: string) => Promise<boolean>;
  baseUrl: string;
  clickIdParam: string;
  now: () => number;
}

export function isProvider(v: string): v is Provider {
  return (PROVIDERS as readonly string[]).includes(v);
}

const REASONS: Record<Exclude<Verdict, { ok: true }>['reason'], string> = {
  missing: 'The signature header is missing.',
  malformed: 'The signature header is malformed.',
  mismatch: 'The signature does not match the body and the configured secret.',
  expired: 'The signature timestamp is outside the 5-minute tolerance (an old or replayed delivery).',
};

const context = (workspaceId: string, provider: Provider) => `${workspaceId}/${provider}`;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

export function createIntegrationsService(o: IntegrationsServiceOptions) {
  const notConfigured = (provider: Provider) => new ApiError('not_found', `No ${PROVIDER_NAMES[provider]} integration is set up at this address.`);

  function verify(provider: Provider, body: Buffer, headers: IncomingHttpHeaders, secret: string): Verdict {
    if (provider === 'stripe') return verifyStripe(body, header(headers, 'stripe-signature'), secret, o.now());
    if (provider === 'paddle') return verifyPaddle(body, header(headers, 'paddle-signature'), secret, o.now());
    return verifyShopify(body, header(headers, 'x-shopify-hmac-sha256'), secret);
  }

  function parse(provider: Provider, payload: unknown, topic: string | undefined, webhookId: string | undefined): ParsedEvent | undefined {
    if (provider === 'stripe') return parseStripeEvent(payload);
    if (provider === 'paddle') return parsePaddleEvent(payload);
    return parseShopifyEvent(payload, { topic, webhookId }, o.clickIdParam);
  }

  async function handle(workspaceId: string, provider: Provider, event: ParsedEvent, rawBody: string, log: Log): Promise<ReceiveAnswer> {
    const key = { workspaceId, provider, eventId: event.eventId };
    const claim = await o.store.claim(key, event.type, o.now());
    if (claim !== 'claimed') {
      if (claim.outcome === 'processing') throw new ApiError('conflict', `Event ${event.eventId} is being recorded by another delivery; retry later.`);
      return { received: true, eventId: event.eventId, outcome: claim.outcome as Outcome, message: claim.message, replay: true };
    }
    try {
      const result = await o.recorder.record(workspaceId, provider, event.intent, log);
      await o.store.finish(key, result.outcome, result.message, result.outcome === 'skipped' ? rawBody : null);
      return { received: true, eventId: event.eventId, ...result, replay: false };
    } catch (err) {
      await o.store.release(key).catch(() => undefined);
      log.error({ err, provider, eventId: event.eventId }, 'integration event could not be recorded; the provider retries it');
      throw err;
    }
  }

  return {
    endpointUrl: (workspaceId: string, provider: Provider) => `${o.baseUrl}/integrations/${provider}/${encodeURIComponent(workspaceId)}`,

    async receive(provider: Provider, workspaceId: string, body: Buffer, headers: IncomingHttpHeaders, log: Log): Promise<ReceiveAnswer> {
      const sealed = await o.store.sealedSecret(workspaceId, provider);
      if (!sealed) throw notConfigured(provider);
      const secret = o.box.open(sealed, context(workspaceId, provider));
      if (secret === undefined) {
        log.error({ provider, workspaceId }, 'the integration secret does not open with this SECRETS_KEY; set the secret again');
        throw new ApiError('internal_server_error', 'The integration secret cannot be read; the workspace owner must set it again.');
      }
      const verdict = verify(provider, body, headers, secret);
      if (!verdict.ok) {
        log.warn({ provider, workspaceId, reason: verdict.reason }, 'integration delivery refused: bad signature');
        throw new ApiError('bad_request', REASONS[verdict.reason]);
      }
      const text = body.toString('utf8');
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        throw new ApiError('bad_request', 'The body is not valid JSON.');
      }
      const event = parse(provider, payload, header(headers, 'x-shopify-topic'), header(headers, 'x-shopify-webhook-id'));
      if (!event) throw new ApiError('bad_request', `The body is not a ${PROVIDER_NAMES[provider]} event.`);
      return handle(workspaceId, provider, event, text, log);
    },

    /** Records a `skipped` event again from its stored body (its customer or sale may exist now). */
    async retry(workspaceId: string, provider: Provider, eventId: string, log: Log): Promise<ReceiveAnswer> {
      const row = await o.store.find({ workspaceId, provider, eventId });
      if (!row || row.outcome !== 'skipped' || row.payload === null) throw new ApiError('not_found', 'No skipped event with this id.');
      let event: ParsedEvent | undefined;
      try {
        event = parse(provider, JSON.parse(row.payload), row.type, row.event_id);
      } catch {
        event = undefined;
      }
      // A stored body that no longer reads as an event stays skipped, with the reason.
      if (!event) return { received: true, eventId, outcome: 'skipped', message: row.message, replay: true };
      return handle(workspaceId, provider, { ...event, eventId }, row.payload, log);
    },

    /** Saves (or replaces) the provider's signing secret, sealed; audited as `integration.secret_set` (never the secret). */
    async setSecret(workspaceId: string, provider: Provider, secret: string, who?: Who): Promise<void> {
      const s = secret.trim();
      if (!s || s.length > MAX_SECRET_CHARS || /[\s\u0000]/.test(s)) throw new ApiError('unprocessable_entity', `The secret must be 1 to ${MAX_SECRET_CHARS} characters without spaces.`);
      if (!(await o.workspaceExists(workspaceId))) throw new ApiError('not_found', 'Workspace not found.');
      await o.store.saveSecret(workspaceId, provider, o.box.seal(s, context(workspaceId, provider)), o.now(), async (trx) => {
        if (who) await record(trx, who, { workspaceId, action: 'integration.secret_set', targetIds: provider });
      });
    },

    /** Removes the provider's integration (its deliveries are refused from then on); audited as `integration.remove`. */
    async removeSecret(workspaceId: string, provider: Provider, who?: Who): Promise<void> {
      const removed = await o.store.removeSecret(workspaceId, provider, async (trx) => {
        if (who) await record(trx, who, { workspaceId, action: 'integration.remove', targetIds: provider });
      });
      if (!removed) throw new ApiError('not_found', `No ${PROVIDER_NAMES[provider]} integration is set up.`);
    },

    /** What the settings page shows: each provider's address and whether a secret is set, and the latest deliveries. */
    async overview(workspaceId: string): Promise<{ providers: { provider: Provider; name: string; endpoint: string; configuredAt: number | null }[]; recent: IntegrationEventRow[] }> {
      const configured = new Map((await o.store.configured(workspaceId)).map((r) => [r.provider, Number(r.updated_at)]));
      return {
        providers: PROVIDERS.map((provider) => ({ provider, name: PROVIDER_NAMES[provider], endpoint: `${o.baseUrl}/integrations/${provider}/${encodeURIComponent(workspaceId)}`, configuredAt: configured.get(provider) ?? null })),
        recent: await o.store.recent(workspaceId, RECENT_EVENTS),
      };
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;

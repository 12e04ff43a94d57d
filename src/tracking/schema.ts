/**
 * Request and response schemas of `POST /track/lead` and `POST /track/sale`, with the limits of
 * the spec's Limits table. Response shapes match the SDK's `tracklead.ts` / `tracksale.ts`
 * validators: every key present, `null` where unset.
 */
import { z } from 'zod';

/** Stringified metadata limit (spec, Limits: 10000 characters). */
export const METADATA_MAX_CHARS = 10_000;

/** Most lead events one request may record through `eventQuantity`. */
export const MAX_EVENT_QUANTITY = 100;

/** Payment processors the published API and its SDK accept (SDK `tracksale.ts`). */
export const PAYMENT_PROCESSORS = ['stripe', 'shopify', 'polar', 'paddle', 'apple', 'revenuecat', 'lemonsqueezy', 'dub', 'custom'] as const;

export const LEAD_MODES = ['async', 'wait', 'deferred'] as const;
export type LeadMode = (typeof LEAD_MODES)[number];

const metadata = z
  .record(z.string(), z.unknown())
  .nullish()
  .refine((m) => m === null || m === undefined || JSON.stringify(m).length <= METADATA_MAX_CHARS, {
    message: `Metadata must be at most ${METADATA_MAX_CHARS} characters when stringified.`,
  });

const customerExternalId = z.string().trim().min(1).max(100).meta({ description: "The customer's unique id in your system." });
const customerName = z.string().max(100).nullish().meta({ description: 'A random readable name is generated when absent.' });
const customerEmail = z.email().max(100).nullish();
const customerAvatar = z.url().max(2000).nullish();

export const TrackLeadBody = z.object({
  clickId: z
    .string()
    .trim()
    .meta({
      description:
        'Id of the click the lead comes from (the `waymark_id` cookie set by /script.js). With an empty string the click of the existing customer named by `customerExternalId` is used.',
    }),
  eventName: z.string().trim().min(1).max(255).meta({ description: 'Lead event name; a later sale can name it in `leadEventName`.' }),
  customerExternalId,
  customerName,
  customerEmail,
  customerAvatar,
  mode: z.enum(LEAD_MODES).default('async').meta({
    description: '`async` answers before the event is written, `wait` after it is committed, `deferred` records the customer only.',
  }),
  eventQuantity: z.number().int().min(1).max(MAX_EVENT_QUANTITY).nullish().meta({ description: 'Records the lead event N times.' }),
  metadata,
});
export type TrackLeadBody = z.infer<typeof TrackLeadBody>;

export const TrackSaleBody = z.object({
  customerExternalId,
  amount: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({
    description: 'Smallest unit of `currency` (cents; whole units for zero-decimal currencies such as JPY). 0 records nothing.',
  }),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'Expected a 3-letter ISO 4217 currency code.')
    .default('usd')
    .meta({ description: 'ISO 4217 code, any case; converted to USD cents with the rate table.' }),
  eventName: z.string().trim().max(255).default('Purchase'),
  paymentProcessor: z.enum(PAYMENT_PROCESSORS).default('custom'),
  invoiceId: z.string().max(255).nullish().meta({ description: 'Idempotency key: one sale per invoice id and workspace.' }),
  metadata,
  leadEventName: z.string().max(255).nullish().meta({ description: 'Case-sensitive name of the lead the sale belongs to; default the latest lead.' }),
  clickId: z.string().trim().nullish().meta({ description: 'Direct sale tracking: the click, when the customer has no lead yet.' }),
  customerName,
  customerEmail,
  customerAvatar,
});
export type TrackSaleBody = z.infer<typeof TrackSaleBody>;

export const TrackLeadResponse = z.object({
  click: z.object({ id: z.string() }),
  link: z
    .object({
      id: z.string(),
      domain: z.string(),
      key: z.string(),
      shortLink: z.string(),
      url: z.string(),
      partnerId: z.string().nullable(),
      programId: z.string().nullable(),
      tenantId: z.string().nullable(),
      externalId: z.string().nullable(),
    })
    .nullable()
    .meta({ description: 'Null when the lead was a duplicate (same customer and event name within 7 days).' }),
  customer: z.object({
    name: z.string().nullable(),
    email: z.string().nullable(),
    avatar: z.string().nullable(),
    externalId: z.string().nullable(),
  }),
});
export type TrackLeadResponse = z.infer<typeof TrackLeadResponse>;

export const TrackSaleResponse = z.object({
  eventName: z.string(),
  customer: z
    .object({
      id: z.string(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      avatar: z.string().nullable(),
      externalId: z.string().nullable(),
    })
    .nullable(),
  sale: z
    .object({
      amount: z.number().meta({ description: 'US cents.' }),
      currency: z.string(),
      paymentProcessor: z.string(),
      invoiceId: z.string().nullable(),
      metadata: z.record(z.string(), z.unknown()).nullable(),
    })
    .nullable(),
});
export type TrackSaleResponse = z.infer<typeof TrackSaleResponse>;

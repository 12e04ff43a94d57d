/** The journey endpoint's request and response (zod: validation and the OpenAPI document). */
import { z } from 'zod';
import { CustomerResponse } from '../customers/schema.js';
import { ATTRIBUTION_MODELS } from '../attribution/models.js';

export const JourneyQuery = z.object({
  lookbackDays: z.coerce
    .number({ error: 'lookbackDays must be a whole number of days from 1 to 365.' })
    .int('lookbackDays must be a whole number of days from 1 to 365.')
    .min(1, 'lookbackDays must be a whole number of days from 1 to 365.')
    .max(365, 'lookbackDays must be a whole number of days from 1 to 365.')
    .optional()
    .describe('Clicks older than this before a sale get no credit (default 90).'),
});

const Credit = z.object({ linkId: z.string(), domain: z.string().nullable(), key: z.string().nullable(), sales: z.number(), saleAmount: z.number() });

export const JourneyResponse = z
  .object({
    customer: CustomerResponse,
    events: z.array(
      z.object({
        event: z.enum(['click', 'lead', 'sale']),
        timestamp: z.string(),
        clickId: z.string().nullable(),
        link: z.object({ id: z.string(), domain: z.string(), key: z.string() }),
        url: z.string().nullable(),
        country: z.string().nullable(),
        device: z.string().nullable(),
        referer: z.string().nullable(),
        eventName: z.string().nullable(),
        saleAmount: z.number().nullable().describe('Cents (sales only).'),
        invoiceId: z.string().nullable(),
      }),
    ),
    truncated: z.boolean().describe('More events than a journey shows (2,000): the oldest are listed.'),
    lookbackDays: z.number(),
    attribution: z.object(Object.fromEntries(ATTRIBUTION_MODELS.map((m) => [m, z.array(Credit)])) as Record<(typeof ATTRIBUTION_MODELS)[number], z.ZodArray<typeof Credit>>),
  })
  .describe("A customer's clicks, leads and sales in time order, and the revenue each attribution model credits to each link (Waymark; not in the published API).");

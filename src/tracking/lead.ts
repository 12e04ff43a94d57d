/**
 * `POST /track/lead`: attributes a sign-up (or any lead event) to a click, its link and a customer.
 *
 * Order of work (behaviour.md §6.1 where the spec is silent):
 * 1. find the customer by external id; an empty `clickId` takes the customer's stored click;
 * 2. a lead with the same customer and event name inside 7 days is a duplicate: 200, `link: null`;
 * 3. the click must be one of this workspace (404 otherwise) and its link must exist and be enabled;
 * 4. one transaction: upsert the customer, and unless `deferred`, append N lead events through the
 *    event store and add N to `link.leads` (events/counters.ts).
 * `wait` and `deferred` answer after the commit; `async` answers after the checks and commits right
 * after, retrying and logging a failure with what is needed to replay it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { customerDisplayName } from '../customers/names.js';
import type { CustomerPatch } from '../customers/store.js';
import type { CustomerRow } from '../customers/schema.js';
import type { LinkRow } from './store.js';
import { isDuplicateLead, leadEventRows, LEAD_DEDUP_WINDOW_MS, type AttributionSource } from './attribution.js';
import { customerKey, findClickOrThrow, findLinkOrThrow, type CustomerInput, type Log, type TrackDeps } from './deps.js';
import type { TrackLeadBody, TrackLeadResponse } from './schema.js';
import { conversionOutboxEntry, type Outbox } from '../outbox/outbox.js';

/** Delays between the attempts of an `async` lead write; the first attempt runs at once. */
const ASYNC_RETRY_DELAYS_MS = [250, 1000, 4000];
/** Immediate retries when another process created the same customer at the same moment. */
const UNIQUE_RACE_RETRIES = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything the write needs, decided before it (so an `async` answer can go out first). */
interface PreparedLead {
  click: AttributionSource;
  link: LinkRow;
  /** Name for a customer created by this lead, chosen once so the answer and the row agree. */
  newCustomerName: string;
  response: TrackLeadResponse;
}

/** The link part of the lead answer. */
function linkSummary(link: LinkRow): NonNullable<TrackLeadResponse['link']> {
  return {
    id: link.id,
    domain: link.domain,
    key: link.key,
    shortLink: link.short_link,
    url: link.url,
    partnerId: link.partner_id,
    programId: link.program_id,
    tenantId: link.tenant_id,
    externalId: link.external_id,
  };
}

/** Fields a lead writes onto an existing customer: what the request gives, and a first click. */
export function customerPatchFromLead(row: CustomerRow, input: CustomerInput, click: AttributionSource, now: number): CustomerPatch {
  const patch: CustomerPatch = { updated_at: now };
  if (input.customerName?.trim()) patch.name = input.customerName.trim();
  if (input.customerEmail) patch.email = input.customerEmail;
  if (input.customerAvatar) patch.avatar = input.customerAvatar;
  if (!row.click_id) {
    patch.click_id = click.click_id;
    patch.link_id = click.link_id;
  }
  if (!row.country) patch.country = countryOf(click);
  return patch;
}

/** The click's country, or null when geolocation found none. */
export function countryOf(click: AttributionSource): string | null {
  const c = click.country;
  return c && c !== 'Unknown' ? c : null;
}

/**
 * Creates the customer, or applies the request's fields to the existing one, inside `trx`.
 * Updating the existing row also locks it, so concurrent leads of one customer queue up.
 */
export async function upsertCustomer(
  deps: TrackDeps,
  trx: Kysely<Database>,
  workspaceId: string,
  externalId: string,
  input: CustomerInput,
  click: AttributionSource,
  newName: string,
): Promise<CustomerRow> {
  const customers = deps.customers(trx);
  const now = deps.now();
  const existing = await customers.findByExternalId(workspaceId, externalId);
  if (existing) {
    return (await customers.update(workspaceId, existing.id, customerPatchFromLead(existing, input, click, now))) ?? existing;
  }
  const row: CustomerRow = {
    id: newId('cus', now),
    workspace_id: workspaceId,
    external_id: externalId,
    name: newName,
    email: input.customerEmail ?? null,
    avatar: input.customerAvatar ?? null,
    country: countryOf(click),
    processor_customer_id: null,
    click_id: click.click_id,
    link_id: click.link_id,
    sales: 0,
    sale_amount: 0,
    first_sale_at: null,
    created_at: now,
    updated_at: now,
  };
  await customers.insert(row);
  return row;
}

export interface LeadService {
  track(workspaceId: string, body: TrackLeadBody, log: Log): Promise<TrackLeadResponse>;
}

export function createLeadService(deps: TrackDeps, outbox?: Outbox): LeadService {
  async function prepare(workspaceId: string, body: TrackLeadBody): Promise<PreparedLead | TrackLeadResponse> {
    const customer = await deps.customers(deps.db).findByExternalId(workspaceId, body.customerExternalId);
    const clickId = body.clickId || customer?.click_id;
    if (!clickId) {
      throw new ApiError(
        'bad_request',
        'No clickId was given and no existing customer with this customerExternalId has a click to reuse.',
      );
    }
    const customerOut = {
      name: customer?.name ?? null,
      email: customer?.email ?? null,
      avatar: customer?.avatar ?? null,
      externalId: body.customerExternalId,
    };
    if (customer && body.mode !== 'deferred') {
      const names = await deps.conversions.leadNamesSince(workspaceId, customer.id, deps.now() - LEAD_DEDUP_WINDOW_MS);
      if (isDuplicateLead(names, body.eventName)) return { click: { id: clickId }, link: null, customer: customerOut };
    }
    const click = await findClickOrThrow(deps, workspaceId, clickId);
    const link = await findLinkOrThrow(deps, workspaceId, click, 'lead');
    const newCustomerName = customerDisplayName(body.customerName, body.customerEmail);
    const response: TrackLeadResponse = {
      click: { id: click.click_id },
      link: linkSummary(link),
      customer: customer
        ? {
            name: body.customerName?.trim() || customer.name,
            email: body.customerEmail || customer.email,
            avatar: body.customerAvatar || customer.avatar,
            externalId: customer.external_id,
          }
        : {
            name: newCustomerName,
            email: body.customerEmail ?? null,
            avatar: body.customerAvatar ?? null,
            externalId: body.customerExternalId,
          },
    };
    return { click, link, newCustomerName, response };
  }

  /** One transaction: customer, then (unless deferred and unless a duplicate) events and counters. */
  async function write(workspaceId: string, body: TrackLeadBody, p: PreparedLead): Promise<number> {
    return deps.db.transaction().execute(async (trx) => {
      const customer = await upsertCustomer(deps, trx, workspaceId, body.customerExternalId, body, p.click, p.newCustomerName);
      if (body.mode === 'deferred') return 0;
      const now = deps.now();
      // Checked again under the customer's row lock: the check in prepare() may have raced.
      if (isDuplicateLead(await deps.conversions.leadNamesSince(workspaceId, customer.id, now - LEAD_DEDUP_WINDOW_MS, trx), body.eventName)) return 0;
      const quantity = body.eventQuantity ?? 1;
      const rows = leadEventRows(p.click, {
        workspaceId,
        customerId: customer.id,
        eventName: body.eventName,
        metadata: body.metadata,
        quantity,
        now,
        newEventId: () => newId('evt', now),
      });
      await deps.conversions.append(rows, trx);
      await deps.counters.addLeads(trx, workspaceId, p.click.link_id, quantity);
      await outbox?.write(trx, [conversionOutboxEntry(rows[0]!, now)]);
      return quantity;
    }).finally(() => outbox?.nudge())
      // Committed: readable by analytics before the answer (the column store copies after the commit).
      .then(async (out) => {
        await deps.conversions.afterCommit();
        return out;
      });
  }

  /** `write`, retried at once when another process inserted the same customer concurrently. */
  async function writeResolvingRaces(workspaceId: string, body: TrackLeadBody, p: PreparedLead): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await write(workspaceId, body, p);
      } catch (err) {
        if (!deps.dialect.isUniqueViolation(err) || attempt >= UNIQUE_RACE_RETRIES) throw err;
      }
    }
  }

  async function writeInBackground(workspaceId: string, body: TrackLeadBody, p: PreparedLead, log: Log): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await writeResolvingRaces(workspaceId, body, p);
        return;
      } catch (err) {
        const delay = ASYNC_RETRY_DELAYS_MS[attempt];
        if (delay === undefined) {
          // Not lost silently: the log line holds what an operator needs to replay the lead.
          log.error(
            {
              err,
              lead: {
                workspaceId,
                clickId: p.click.click_id,
                eventName: body.eventName,
                customerExternalId: body.customerExternalId,
                eventQuantity: body.eventQuantity ?? 1,
              },
            },
            'async lead could not be written after retries; it was answered but is not recorded',
          );
          return;
        }
        log.warn({ err, attempt: attempt + 1 }, 'async lead write failed; retrying');
        await sleep(delay);
      }
    }
  }

  return {
    track(workspaceId, body, log) {
      return deps.queue.run(customerKey(workspaceId, body.customerExternalId), async () => {
        const prepared = await prepare(workspaceId, body);
        if (!('response' in prepared)) return { value: prepared };
        if (body.mode === 'async') {
          return { value: prepared.response, after: () => writeInBackground(workspaceId, body, prepared, log) };
        }
        const recorded = await writeResolvingRaces(workspaceId, body, prepared);
        // A concurrent request recorded the same lead first: answer as for a duplicate.
        if (recorded === 0 && body.mode === 'wait') return { value: { ...prepared.response, link: null } };
        return { value: prepared.response };
      });
    },
  };
}

/**
 * Mail to a webhook's owners (the workspace's owners) when it keeps failing: at 5, 10 and 15
 * consecutive failures, and when the 20th disables it (as the published service does). Written
 * to the outbox in the transaction that records the failure (delivery-store.ts `record`), so a
 * failure that rolls back mails no one and one that commits mails once; the mailer sends it
 * (src/mail/).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import { writeOutbox } from '../outbox/outbox.js';
import { mailEntry } from '../mail/module.js';

/** Consecutive failures that mail the owners before the webhook is disabled. */
export const ALERT_AFTER_FAILURES = [5, 10, 15] as const;

/** Whether `failures` (after this one) calls for a mail; `disabled`: this failure disabled it. */
export function alertDue(failures: number, disabled: boolean): boolean {
  return disabled || (ALERT_AFTER_FAILURES as readonly number[]).includes(failures);
}

export async function writeFailureAlert(trx: Kysely<Database>, webhookId: string, failures: number, disabled: boolean, now: number): Promise<void> {
  const hook = await trx
    .selectFrom('webhooks as w')
    .innerJoin('workspaces as ws', 'ws.id', 'w.workspace_id')
    .select(['w.id', 'w.name', 'w.url', 'w.workspace_id', 'ws.slug'])
    .where('w.id', '=', webhookId)
    .executeTakeFirst();
  if (!hook) return;
  const owners = await trx
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('u.email')
    .where('m.workspace_id', '=', hook.workspace_id)
    .where('m.role', '=', 'owner')
    .execute();
  if (!owners.length) return;
  const intent = {
    kind: disabled ? ('webhook_disabled' as const) : ('webhook_failing' as const),
    to: owners.map((o) => o.email),
    workspaceSlug: hook.slug,
    webhookId: hook.id,
    webhookName: hook.name,
    webhookUrl: hook.url,
    failures,
  };
  await writeOutbox(trx, [mailEntry(intent, hook.workspace_id, now)]);
}

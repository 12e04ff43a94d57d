/**
 * Paddle Billing `transaction.completed` → a sale, an approved refund adjustment → a refund (pure). The click id and the app's customer id
 * travel in the transaction's `custom_data` (`waymark_id` or `dub_id`; `dubCustomerExternalId`),
 * passed to Paddle.js at checkout; a subscription copies its `custom_data` onto every renewal's
 * transaction, so renewals are recurring sales of the same customer. The transaction id is the
 * invoice id; `details.totals.grand_total` (a string in the smallest unit) is the amount.
 */
import { CLICK_ID_KEYS, CUSTOMER_ID_KEYS, field, first, fromMetadata, minorAmount, text, type Intent, type ParsedEvent } from './intent.js';

export function parsePaddleEvent(payload: unknown): ParsedEvent | undefined {
  const eventId = text(field(payload, 'event_id'));
  const type = text(field(payload, 'event_type'));
  const data = field(payload, 'data');
  if (!eventId || !type || !data || typeof data !== 'object') return undefined;
  if (type === 'adjustment.created' || type === 'adjustment.updated') {
    // An approved refund is recorded once by its adjustment id, whether it arrives approved at
    // creation or by a later update; a pending one is only acknowledged.
    const approved = field(data, 'action') === 'refund' && field(data, 'status') === 'approved';
    const id = text(field(data, 'id'));
    return { eventId: approved && id ? `${id}:approved` : eventId, type, intent: adjustmentIntent(data, approved) };
  }
  return { eventId, type, intent: paddleIntent(type, data) };
}

function adjustmentIntent(adj: unknown, approved: boolean): Intent {
  if (!approved) return { kind: 'ignore', reason: 'Only approved refund adjustments change revenue.' };
  const txn = text(field(adj, 'transaction_id'));
  const increment = minorAmount(field(field(adj, 'totals'), 'total'));
  const currency = text(field(adj, 'currency_code'));
  if (!txn || increment === null || !currency) return { kind: 'ignore', reason: 'The adjustment has no transaction, total or currency.' };
  return { kind: 'refund', invoiceIds: [txn], refunded: { increment }, currency };
}

function paddleIntent(type: string, txn: unknown): Intent {
  if (type !== 'transaction.completed') return { kind: 'ignore', reason: `Waymark does not use ${type} events.` };
  const totals = field(field(txn, 'details'), 'totals');
  const amount = minorAmount(first(field(totals, 'grand_total'), field(totals, 'total')));
  const currency = text(field(txn, 'currency_code'));
  const id = text(field(txn, 'id'));
  if (amount === null || !currency || !id) return { kind: 'ignore', reason: 'The transaction has no id, currency or total.' };
  const custom = field(txn, 'custom_data');
  return {
    kind: 'sale',
    customer: { externalId: fromMetadata(custom, CUSTOMER_ID_KEYS), processorId: text(field(txn, 'customer_id')), email: null, name: null },
    clickId: fromMetadata(custom, CLICK_ID_KEYS),
    amount,
    currency,
    invoiceId: id,
    eventName: field(txn, 'origin') === 'subscription_recurring' ? 'Subscription renewal' : 'Purchase',
    metadata: { paddleTransaction: id, paddleInvoice: text(field(txn, 'invoice_number')) },
  };
}

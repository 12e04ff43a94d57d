/**
 * Mail (issue 30): invitations, password resets and webhook alerts. A change that wants a mail
 * writes a `mail.send` row to the outbox in its own transaction (`mailEntry`); the publisher
 * (events/publisher.ts) hands it to the mailer after the commit, retrying with backoff while the
 * SMTP server refuses or is down, so mail is delayed, never lost (for the outbox's 7 days).
 * Without `SMTP_URL` there is no mailer: nobody wants `mail.send`, nothing is written, and the
 * dashboard hands links over as before.
 *
 * @example
 * const mail = await createMailer(config);     // undefined without SMTP_URL
 * subscribers.push(mail.subscriber);
 * await outbox.write(trx, [mailEntry({ kind: 'password_reset', to, token, expiresAt }, workspaceId, now)]);
 */
import type { Config } from '../config.js';
import { outboxEntry, type DomainEvent, type OutboxEntry, type OutboxType } from '../outbox/outbox.js';
import type { Subscriber } from '../outbox/publisher.js';
import type { MailIntent } from './intents.js';
import { renderMail } from './messages.js';

/** The outbox row of a mail; `workspaceId` is whose it is ('' for mail of no workspace: a password reset). */
export function mailEntry(intent: MailIntent, workspaceId: string, now: number): OutboxEntry {
  return outboxEntry('mail.send', workspaceId, intent, now);
}

/** Ids of mail sent by this process lately: a redelivered event is not sent twice. */
const REMEMBERED = 10_000;

export async function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'baseUrl'>) {
  if (!config.smtpUrl) return undefined;
  // Loaded only with SMTP_URL: nodemailer is ~40 modules every process would otherwise load.
  const { default: nodemailer } = await import('nodemailer');
  // One connection at a time, closed after each message: a down server costs one failed connect.
  const transport = nodemailer.createTransport(config.smtpUrl, { from: config.mailFrom });
  const sent = new Set<string>();
  const subscriber: Subscriber = {
    name: 'mail',
    events: ['mail.send'],
    async deliver(delivered) {
      const event = delivered as unknown as DomainEvent<'mail.send', Record<OutboxType, unknown> & { 'mail.send': MailIntent }>;
      if (sent.has(event.id)) return;
      const m = renderMail(event.data, config.baseUrl);
      // The event id as Message-ID: a copy sent again after a crash is recognisably the same mail.
      await transport.sendMail({ from: config.mailFrom, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: `<${event.id}@waymark>` });
      sent.add(event.id);
      if (sent.size > REMEMBERED) sent.delete(sent.values().next().value!);
    },
  };
  return { subscriber, close: () => transport.close() };
}
export type Mailer = NonNullable<Awaited<ReturnType<typeof createMailer>>>;

/**
 * A real SMTP receiver in the test process (`smtp-server`) that keeps every message it gets:
 * recipients, subject and the decoded text (quoted-printable undone, so links keep their `=`).
 *
 * @example
 * const smtp = new SmtpInbox();
 * await smtp.start();                                   // smtp://127.0.0.1:${smtp.port}
 * const m = await smtp.mailTo('ann@example.com');      // waits for it
 * await smtp.stop();
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface Received {
  to: string[];
  subject: string;
  text: string;
}

/** The raw message's Subject and decoded body. */
function parse(raw: string, to: string[]): Received {
  const subject = /^Subject: (.*)$/im.exec(raw)?.[1]?.trim() ?? '';
  const text = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  return { to, subject, text };
}

export class SmtpInbox {
  readonly inbox: Received[] = [];
  port = 0;
  private server?: SMTPServer;

  /** Listens on 127.0.0.1 (`listenPort`, else a free port). */
  start(listenPort = 0): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData: (stream, session, callback) => {
        let raw = '';
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => (raw += c));
        stream.on('end', () => {
          this.inbox.push(parse(raw, session.envelope.rcptTo.map((r) => r.address)));
          callback();
        });
      },
    });
    this.server = server;
    return new Promise((resolve) =>
      server.listen(listenPort, '127.0.0.1', () => {
        this.port = (server.server.address() as AddressInfo).port;
        resolve();
      }),
    );
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Waits for a message to `address` (with this `subject`, if given): the publisher delivers after the commit, retrying. */
  async mailTo(address: string, timeoutMs = 30_000, subject?: string): Promise<Received> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.inbox.find((m) => m.to.includes(address) && (subject === undefined || m.subject === subject));
      if (found) return found;
      if (Date.now() > until) throw new Error(`no mail to ${address}; got: ${this.inbox.map((m) => m.to.join(',')).join('; ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

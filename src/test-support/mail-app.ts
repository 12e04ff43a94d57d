/**
 * A test app that sends its mail to a real SMTP receiver (smtp-inbox.ts), both started in the
 * calling file's `before` and stopped in its `after`.
 *
 * @example
 * let t: TestApp;
 * const smtp = useMailTestApp((app) => (t = app));
 * test('…', async () => { …; await smtp.mailTo('ann@example.com'); });
 */
import { after, before } from 'node:test';
import { createTestApp, type TestApp } from './harness.js';
import { SmtpInbox } from './smtp-inbox.js';

export const TEST_MAIL_FROM = 'Waymark <links@example.com>';

/** Registers the hooks; `started` receives the app once it runs. `env` adds to the mail settings. */
export function useMailTestApp(started: (app: TestApp) => void, env: Record<string, string> = {}): SmtpInbox {
  const smtp = new SmtpInbox();
  let app: TestApp | undefined;
  before(async () => {
    await smtp.start();
    app = await createTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: TEST_MAIL_FROM, ...env } });
    started(app);
  });
  after(async () => {
    await app?.close();
    await smtp.stop();
  });
  return smtp;
}

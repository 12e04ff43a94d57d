/**
 * The text of each mail (pure): subject, plain text and a small HTML part, from a `MailIntent`
 * and the server's `BASE_URL`. Links carry their token in the query; nothing else secret is
 * written.
 *
 * @example
 * const m = renderMail({ kind: 'password_reset', to: 'ann@example.com', token, expiresAt }, 'https://links.example.com');
 * m.subject; // 'Reset your Waymark password'
 */
import { escapeHtml } from '@kitajs/html';
import type { MailIntent } from './intents.js';

export interface RenderedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

function paragraphsHtml(lines: string[], link?: { url: string; label: string }): string {
  const body = lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('');
  const button = link ? `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>` : '';
  return `<!doctype html><html><body style="font-family:sans-serif">${body}${button}</body></html>`;
}

export function renderMail(intent: MailIntent, baseUrl: string): RenderedMail {
  const base = baseUrl.replace(/\/+$/, '');
  switch (intent.kind) {
    case 'invitation': {
      const url = `${base}/dashboard/invite?token=${encodeURIComponent(intent.token)}`;
      const who = intent.inviterName ? `${intent.inviterName} invited you` : 'You are invited';
      const lines = [`${who} to the workspace "${intent.workspaceName}" on Waymark.`, `Accept the invitation before ${when(intent.expiresAt)}:`];
      return { to: [intent.to], subject: `Join ${intent.workspaceName} on Waymark`, text: `${lines.join('\n')}\n${url}\n`, html: paragraphsHtml(lines, { url, label: 'Accept the invitation' }) };
    }
    case 'password_reset': {
      const url = `${base}/dashboard/reset?token=${encodeURIComponent(intent.token)}`;
      const lines = [
        'Someone asked to reset the password of your Waymark account.',
        `Choose a new password with this link, once, before ${when(intent.expiresAt)}:`,
      ];
      const tail = 'If you did not ask, ignore this mail: your password stays as it is.';
      return { to: [intent.to], subject: 'Reset your Waymark password', text: `${lines.join('\n')}\n${url}\n\n${tail}\n`, html: paragraphsHtml(lines, { url, label: 'Choose a new password' }).replace('</body>', `<p>${escapeHtml(tail)}</p></body>`) };
    }
    case 'email_changed': {
      const lines = [
        `The email address of the Waymark account of ${intent.name} was changed from ${intent.to} to ${intent.newEmail}.`,
        `From now on the account signs in as ${intent.newEmail}, and its other sessions have been ended.`,
      ];
      const tail = 'If you did not make this change, tell the administrator of your Waymark installation at once.';
      return { to: [intent.to], subject: 'Your Waymark email address was changed', text: `${lines.join('\n')}\n\n${tail}\n`, html: paragraphsHtml([...lines, tail]) };
    }
    case 'webhook_failing':
    case 'webhook_disabled': {
      const url = `${base}/dashboard/w/${encodeURIComponent(intent.workspaceSlug)}/settings/webhooks/${encodeURIComponent(intent.webhookId)}`;
      const disabled = intent.kind === 'webhook_disabled';
      const lines = disabled
        ? [`The webhook "${intent.webhookName}" (${intent.webhookUrl}) failed ${intent.failures} times in a row and has been disabled.`, 'Fix the receiver, then enable it again:']
        : [`The webhook "${intent.webhookName}" (${intent.webhookUrl}) failed ${intent.failures} times in a row.`, 'It is disabled after 20 consecutive failures. Its deliveries:'];
      const subject = disabled ? `Webhook disabled: ${intent.webhookName}` : `Webhook failing: ${intent.webhookName} (${intent.failures} failures)`;
      return { to: intent.to, subject, text: `${lines.join('\n')}\n${url}\n`, html: paragraphsHtml(lines, { url, label: 'Open the webhook' }) };
    }
  }
}

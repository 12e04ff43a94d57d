/**
 * What a mail is about, as the outbox keeps it (`mail.send` rows, events/outbox.ts): the facts,
 * not the text. The mailer (module.ts) renders them with `BASE_URL` when it sends (messages.ts),
 * so a change that wants a mail only writes this in its own transaction.
 */
export type MailIntent =
  | {
      kind: 'invitation';
      to: string;
      workspaceName: string;
      inviterName: string | null;
      /** The invitation's token: the link's secret, kept only until the mail is delivered. */
      token: string;
      expiresAt: number;
    }
  | {
      kind: 'password_reset';
      to: string;
      /** The reset token (stored hashed): the link's secret, kept only until the mail is delivered. */
      token: string;
      expiresAt: number;
    }
  | {
      /** To the old address of an account whose login address changed (users/profile.ts). */
      kind: 'email_changed';
      to: string;
      newEmail: string;
      name: string;
    }
  | {
      kind: 'webhook_failing' | 'webhook_disabled';
      to: string[];
      workspaceSlug: string;
      webhookId: string;
      webhookName: string;
      webhookUrl: string;
      failures: number;
    };

/** The page an invitation link opens: join as the logged-in user, create the account, or log in first. */
import { BarePage, CsrfField, FormError } from '../layout.js';
import { AccountFields } from './login.js';

export type InviteMode = 'join' | 'create' | 'login' | 'other-account';

export interface InviteView {
  csrf: string;
  token: string;
  workspaceName: string;
  role: string;
  email: string;
  mode: InviteMode;
  loginUrl: string;
  values?: { name?: string };
  error?: string;
}

export function InvitePage(v: InviteView): JSX.Element {
  return (
    <BarePage title="Invitation">
      <h1>
        Join <span safe>{v.workspaceName}</span>
      </h1>
      <p>
        You are invited as <strong safe>{v.role}</strong> (<span safe>{v.email}</span>).
      </p>
      <FormError message={v.error} />
      {v.mode === 'login' ? (
        <p>
          An account with this address exists: <a href={v.loginUrl}>log in</a> to accept.
        </p>
      ) : v.mode === 'other-account' ? (
        <p>You are logged in with another address. Log out, then open this link again.</p>
      ) : (
        <form method="post" action="/dashboard/invite" class="stack">
          <CsrfField token={v.csrf} />
          <input type="hidden" name="token" value={v.token} />
          {v.mode === 'create' ? <AccountFields fixedEmail={v.email} values={v.values} /> : ''}
          <button type="submit">{v.mode === 'create' ? 'Create account and join' : 'Join workspace'}</button>
        </form>
      )}
    </BarePage>
  );
}

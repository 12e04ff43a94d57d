/** The account page: who is logged in, their workspaces, a new password, and log out everywhere. */
import { escapeHtml } from '@kitajs/html';
import { CsrfField, FormError, Layout, workspacePath, type Frame } from '../layout.js';

export function AccountPage({ frame, error, notice }: { frame: Frame; error?: string; notice?: string }): JSX.Element {
  return (
    <Layout frame={frame} title="Account" section="account">
      <h1>Account</h1>
      <p>
        <span safe>{frame.user.name}</span> · <span safe>{frame.user.email}</span>
      </p>
      <h2>Workspaces</h2>
      {frame.workspaces.length ? (
        <ul>
          {frame.workspaces.map((w) => (
            <li>
              <a href={workspacePath(w.slug, '/links')} safe>
                {w.name}
              </a>{' '}
              <span class="role">{escapeHtml(w.role)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p>You are not a member of any workspace yet: ask an owner for an invitation.</p>
      )}
      <h2>Password</h2>
      <FormError message={error} />
      {notice ? (
        <p class="notice" role="status" safe>
          {notice}
        </p>
      ) : (
        ''
      )}
      <form method="post" action="/dashboard/account/password" class="stack">
        <CsrfField token={frame.csrf} />
        <label>
          Current password
          <input type="password" name="current" required autocomplete="current-password" maxlength="256" />
        </label>
        <label>
          New password <span class="hint">(at least 10 characters; other devices are logged out)</span>
          <input type="password" name="password" required autocomplete="new-password" minlength="10" maxlength="256" />
        </label>
        <button type="submit">Change password</button>
      </form>
      <h2>Sessions</h2>
      <p class="hint">Ends every session of this account, on every device, including this one.</p>
      <form method="post" action="/dashboard/logout-everywhere" hx-boost="false">
        <CsrfField token={frame.csrf} />
        <button type="submit" class="danger">
          Log out everywhere
        </button>
      </form>
    </Layout>
  );
}

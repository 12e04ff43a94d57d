/** The account page: who is logged in, their workspaces, and log out everywhere. */
import { CsrfField, Layout, workspacePath, type Frame } from '../layout.js';

export function AccountPage({ frame }: { frame: Frame }): JSX.Element {
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
              <span class="role" safe>
                {w.role}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p>You are not a member of any workspace yet: ask an owner for an invitation.</p>
      )}
      <h2>Sessions</h2>
      <p class="hint">Ends every session of this account, on every device, including this one.</p>
      <form method="post" action="/dashboard/logout-everywhere">
        <CsrfField token={frame.csrf} />
        <button type="submit" class="danger">
          Log out everywhere
        </button>
      </form>
    </Layout>
  );
}

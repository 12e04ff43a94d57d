/**
 * The account page: who is logged in (name and email, each with its form), their workspaces and
 * *New workspace*, a new password, and log out everywhere. A refused form comes back with its
 * message at its field (`err-name`, `err-email`, `err-current`) and what was typed.
 */
import { escapeHtml } from '@kitajs/html';
import { CsrfField, FieldError, FormError, Layout, NEW_WORKSPACE_PATH, workspacePath, type Frame } from '../layout.js';

/** What the profile forms show again after a refusal. */
export interface ProfileForm {
  values?: { name?: string; email?: string };
  errors?: { name?: string; email?: string; current?: string };
}

/**
 * How this account can prove itself for an email change: its password (accounts made by single
 * sign-on have none), and with SSO set up a fresh sign-in at the provider (`fresh`: done within
 * the last 5 minutes).
 */
export interface EmailProofs {
  password: boolean;
  sso?: { name: string; fresh: boolean };
}

function EmailProof({ proofs, error }: { proofs: EmailProofs; error?: string }): JSX.Element {
  const reauth = `/dashboard/sso/start?reauth=1&next=${encodeURIComponent('/dashboard/account')}`;
  if (proofs.sso?.fresh) return <p class="hint">You signed in again with <span safe>{proofs.sso.name}</span>: the address can be changed for a few minutes without the password.</p>;
  return (
    <>
      {proofs.password ? (
        <label>
          Current password
          <input type="password" name="current" autocomplete="current-password" maxlength="256" aria-invalid={error ? 'true' : undefined} aria-describedby={error ? 'err-current' : undefined} />
        </label>
      ) : (
        ''
      )}
      {proofs.sso ? (
        <p class="hint">
          {proofs.password ? 'Or confirm it is you: ' : 'First confirm it is you: '}
          <a href={reauth} hx-boost="false">
            sign in again with <span safe>{proofs.sso.name}</span>
          </a>
        </p>
      ) : proofs.password ? (
        ''
      ) : (
        <p class="hint">This account has no password: an operator can set one (`npx waymark users reset-password`).</p>
      )}
    </>
  );
}

function Profile({ frame, values, errors = {}, proofs }: { frame: Frame; proofs: EmailProofs } & ProfileForm): JSX.Element {
  return (
    <>
      <h2>Profile</h2>
      <form method="post" action="/dashboard/account/name" class="stack">
        <CsrfField token={frame.csrf} />
        <label>
          Name
          <input type="text" name="name" value={values?.name ?? frame.user.name} required maxlength="100" autocomplete="name" aria-invalid={errors.name ? 'true' : undefined} aria-describedby={errors.name ? 'err-name' : undefined} />
        </label>
        <FieldError id="name" message={errors.name} />
        <button type="submit">Save name</button>
      </form>
      <form method="post" action="/dashboard/account/email" class="stack">
        <CsrfField token={frame.csrf} />
        <label>
          Email address <span class="hint">(your login; your other sessions end, and a notice goes to the old address)</span>
          <input type="email" name="email" value={values?.email ?? frame.user.email} required maxlength="254" autocomplete="email" aria-invalid={errors.email ? 'true' : undefined} aria-describedby={errors.email ? 'err-email' : undefined} />
        </label>
        <FieldError id="email" message={errors.email} />
        <EmailProof proofs={proofs} error={errors.current} />
        <FieldError id="current" message={errors.current} />
        <button type="submit">Change email</button>
      </form>
    </>
  );
}

export function AccountPage({ frame, error, notice, profile, proofs = { password: true } }: { frame: Frame; error?: string; notice?: string; profile?: ProfileForm; proofs?: EmailProofs }): JSX.Element {
  return (
    <Layout frame={frame} title="Account" section="account">
      <h1>Account</h1>
      <p>
        <span safe>{frame.user.name}</span> · <span safe>{frame.user.email}</span>
      </p>
      {notice ? (
        <p class="notice" role="status" safe>
          {notice}
        </p>
      ) : (
        ''
      )}
      <Profile frame={frame} proofs={proofs} {...profile} />
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
      {frame.mayCreateWorkspace ? (
        <p>
          <a class="button" href={NEW_WORKSPACE_PATH}>
            New workspace
          </a>
        </p>
      ) : (
        ''
      )}
      <h2>Password</h2>
      <FormError message={error} />
      {proofs.password ? (
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
      ) : (
        <p class="hint">This account signs in with single sign-on and has no password.</p>
      )}
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

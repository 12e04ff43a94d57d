/** The login form (email, password) and the first-run setup form (email, name, password). */
import { BarePage, CsrfField, FormError } from '../layout.js';

/** `forgot`: mail is set up, so the form offers a password reset. */
export function LoginPage({ csrf, next, email, error, forgot }: { csrf: string; next: string; email?: string; error?: string; forgot?: boolean }): JSX.Element {
  return (
    <BarePage title="Log in">
      <h1>Log in</h1>
      <FormError message={error} />
      <form method="post" action="/dashboard/login" class="stack">
        <CsrfField token={csrf} />
        <input type="hidden" name="next" value={next} />
        <label>
          Email
          <input type="email" name="email" required autocomplete="username" autofocus value={email ?? ''} maxlength="254" />
        </label>
        <label>
          Password
          <input type="password" name="password" required autocomplete="current-password" maxlength="256" />
        </label>
        <button type="submit">Log in</button>
      </form>
      {forgot ? (
        <p>
          <a href="/dashboard/forgot">Forgot password?</a>
        </p>
      ) : null}
    </BarePage>
  );
}

export function SetupPage({ csrf, token, values, error }: { csrf: string; token: string; values?: { email?: string; name?: string }; error?: string }): JSX.Element {
  return (
    <BarePage title="Set up Waymark">
      <h1>Create the first account</h1>
      <p class="hint">This account owns the default workspace. The setup address works once.</p>
      <FormError message={error} />
      <form method="post" action="/setup" class="stack">
        <CsrfField token={csrf} />
        <input type="hidden" name="token" value={token} />
        <AccountFields values={values} />
        <button type="submit">Create account</button>
      </form>
    </BarePage>
  );
}

/** Email (unless fixed by an invitation), name and a new password. */
export function AccountFields({ values, fixedEmail }: { values?: { email?: string; name?: string }; fixedEmail?: string }): JSX.Element {
  return (
    <>
      {fixedEmail ? (
        <p>
          Email: <strong safe>{fixedEmail}</strong>
        </p>
      ) : (
        <label>
          Email
          <input type="email" name="email" required autocomplete="username" maxlength="254" value={values?.email ?? ''} />
        </label>
      )}
      <label>
        Name
        <input type="text" name="name" required autocomplete="name" maxlength="100" value={values?.name ?? ''} />
      </label>
      <label>
        Password <span class="hint">(at least 10 characters)</span>
        <input type="password" name="password" required autocomplete="new-password" minlength="10" maxlength="256" />
      </label>
    </>
  );
}

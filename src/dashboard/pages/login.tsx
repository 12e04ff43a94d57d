/** The login form (email, password) and the first-run setup form (email, name, password). */
import { BarePage, CsrfField, FormError } from '../layout.js';

/** Single sign-on on the login page: the button's label, and whether the password form hides (OIDC_ONLY). */
export interface LoginSso {
  name: string;
  /** The password form is not shown (it stays at `/dashboard/login?password=1`). */
  passwordHidden: boolean;
}

/** `forgot`: mail is set up, so the form offers a password reset; `sso`: OIDC is set up. */
export function LoginPage({ csrf, next, email, error, forgot, sso }: { csrf: string; next: string; email?: string; error?: string; forgot?: boolean; sso?: LoginSso }): JSX.Element {
  return (
    <BarePage title="Log in">
      <h1>Log in</h1>
      <FormError message={error} />
      {sso ? (
        <p>
          <a class="button" href={`/dashboard/sso/start?next=${encodeURIComponent(next)}`}>
            Sign in with <span safe>{sso.name}</span>
          </a>
        </p>
      ) : null}
      {sso?.passwordHidden ? null : (
        <>
          <form method="post" action="/dashboard/login" class="stack">
            <CsrfField token={csrf} />
            <input type="hidden" name="next" value={next} />
            <label>
              Email
              <input type="email" name="email" required autocomplete="username" autofocus={!sso} value={email ?? ''} maxlength="254" />
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
        </>
      )}
    </BarePage>
  );
}

/** After logging out of Waymark: the way on to the provider's own logout (the Refresh header follows it). */
export function LeavingPage({ url, name }: { url: string; name: string }): JSX.Element {
  return (
    <BarePage title="Logged out">
      <h1>Logged out</h1>
      <p>
        You are logged out of Waymark. <a href={url}>Log out of <span safe>{name}</span> too</a>.
      </p>
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

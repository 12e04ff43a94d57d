/** "Forgot password?": the form that asks for a link, its one answer, and the new-password form. */
import { BarePage, CsrfField, FormError } from '../layout.js';

/** `sso`: the single sign-on's name, when it is set up (its accounts get a link only when an owner allowed them a password). */
export function ForgotPage({ csrf, sent, error, sso }: { csrf: string; sent?: boolean; error?: string; sso?: string }): JSX.Element {
  const ssoHint = sso ? (
    <p class="hint">
      An account that signs in with <span safe>{sso}</span> gets no link unless an owner of its workspace allowed it a password: <a href="/dashboard/login">sign in with <span safe>{sso}</span></a> instead.
    </p>
  ) : (
    ''
  );
  return (
    <BarePage title="Forgot password">
      <h1>Forgot password?</h1>
      <FormError message={error} />
      {sent ? (
        <p class="notice" role="status">
          If an account uses this address, an email with a link to choose a new password is on its way. The link works once, for one hour.
        </p>
      ) : (
        <form method="post" action="/dashboard/forgot" class="stack">
          <CsrfField token={csrf} />
          <label>
            Email
            <input type="email" name="email" required autocomplete="username" autofocus maxlength="254" />
          </label>
          <button type="submit">Send the link</button>
        </form>
      )}
      {ssoHint}
      <p>
        <a href="/dashboard/login">Back to log in</a>
      </p>
    </BarePage>
  );
}

export function ResetPage({ csrf, token, error, done }: { csrf: string; token: string; error?: string; done?: boolean }): JSX.Element {
  return (
    <BarePage title="Choose a new password">
      <h1>Choose a new password</h1>
      <FormError message={error} />
      {done ? (
        <p class="notice" role="status">
          Your password was changed, and every session of your account has ended. <a href="/dashboard/login">Log in</a>
        </p>
      ) : token ? (
        <form method="post" action="/dashboard/reset" class="stack">
          <CsrfField token={csrf} />
          <input type="hidden" name="token" value={token} />
          <label>
            New password <span class="hint">(at least 10 characters)</span>
            <input type="password" name="password" required autocomplete="new-password" minlength="10" maxlength="256" autofocus />
          </label>
          <button type="submit">Set the password</button>
        </form>
      ) : (
        <p>
          <a href="/dashboard/forgot">Ask for a new link</a>
        </p>
      )}
    </BarePage>
  );
}

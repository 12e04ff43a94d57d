/**
 * Settings → Members: the workspace's members and pending invitations; owners invite, change
 * roles, remove, and allow or withdraw a password for a single sign-on account.
 */
import { escapeHtml } from '@kitajs/html';
import { CopyableSecret, CsrfField, FieldError, TableWrap, workspacePath, type Frame } from '../layout.js';
import { invalidAttrs, type FormErrors } from '../form-errors.js';
import { SettingsShell } from './settings.js';
import { ROLES, can } from '../../users/roles.js';
import type { Member } from '../../users/store.js';
import type { PasswordAccess } from '../../users/password.js';

export interface MembersView {
  frame: Frame & { workspace: { slug: string; name: string } };
  members: Member[];
  invitations: { id: string; email: string; role: string; expiresAt: number }[];
  /** The link of an invitation just made: shown once. */
  inviteLink?: { url: string; email: string; expiresAt: number; emailed?: boolean };
  /** Refusals by field (`email` of the invitation form; `form`: the page's other forms). */
  errors?: FormErrors;
  values?: { email?: string };
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function RoleSelect({ name, selected, label }: { name: string; selected?: string; label: string }): JSX.Element {
  return (
    <select name={name} aria-label={label}>
      {ROLES.map((r) => (
        <option value={r} selected={r === selected}>
          {r}
        </option>
      ))}
    </select>
  );
}

const SIGN_IN: Record<PasswordAccess, string> = {
  password: 'Password',
  sso_only: 'Single sign-on only',
  allowed: 'Single sign-on; may set a password',
};

/** The owner's button that allows an SSO account a password, or withdraws it. */
function PasswordAccessForm({ member, action, csrf }: { member: Member; action: string; csrf: string }): JSX.Element {
  if (member.passwordAccess === 'password') return <></>;
  const allow = member.passwordAccess === 'sso_only';
  return (
    <form method="post" action={action} class="inline">
      <CsrfField token={csrf} />
      <input type="hidden" name="allowed" value={allow ? 'true' : 'false'} />
      {allow ? (
        <button
          type="submit"
          class="secondary"
          data-confirm={`Let ${member.name} (${member.email}) set a password with "Forgot password?"? A password keeps working after their removal at the identity provider, in every workspace they belong to, until an owner withdraws it.`}
          data-confirm-button="Allow a password"
        >
          Allow a password
        </button>
      ) : (
        <button
          type="submit"
          class="secondary"
          data-confirm={`Withdraw the password of ${member.name} (${member.email})? It stops working at once and the sessions it opened end; they sign in with single sign-on.`}
          data-confirm-button="Withdraw password"
        >
          Withdraw password
        </button>
      )}
    </form>
  );
}

export function MembersPage({ frame, members, invitations, inviteLink, errors = {}, values }: MembersView): JSX.Element {
  const manage = can(frame.role!, 'members.manage');
  const base = workspacePath(frame.workspace.slug, '/settings');
  return (
    <SettingsShell frame={frame} current="members" title="Members" error={errors.form}>
      {inviteLink ? (
        <section aria-labelledby="invite-link">
          <h2 id="invite-link">Invitation link</h2>
          <p class="notice">
            {inviteLink.emailed ? <>An email with this link is on its way to <span safe>{inviteLink.email}</span>. </> : <>Hand this link to <span safe>{inviteLink.email}</span>. </>}It works once and expires on <span safe>{isoDay(inviteLink.expiresAt)}</span>; it is not shown again.
          </p>
          <CopyableSecret id="invite-url" value={inviteLink.url} label="Copy link" />
        </section>
      ) : (
        ''
      )}
      <TableWrap label="Members">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Sign-in</th>
              {manage ? <th scope="col">Actions</th> : ''}
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr>
                <td safe>{m.name}</td>
                <td safe>{m.email}</td>
                <td>{escapeHtml(m.role)}</td>
                <td>{escapeHtml(SIGN_IN[m.passwordAccess])}</td>
                {manage ? (
                  <td>
                    <form method="post" action={`${base}/members/${encodeURIComponent(m.userId)}/role`} class="inline">
                      <CsrfField token={frame.csrf} />
                      <RoleSelect name="role" selected={m.role} label={`Role of ${m.email}`} />
                      <button type="submit" class="secondary">
                        Change
                      </button>
                    </form>{' '}
                    <form method="post" action={`${base}/members/${encodeURIComponent(m.userId)}/remove`} class="inline">
                      <CsrfField token={frame.csrf} />
                      <button
                        type="submit"
                        class="danger"
                        data-confirm={`Remove ${m.name} (${m.email}) from ${frame.workspace.name}? They lose access to its links, analytics and settings at once; their account stays.`}
                        data-confirm-button="Remove member"
                      >
                        Remove
                      </button>
                    </form>{' '}
                    <PasswordAccessForm member={m} action={`${base}/members/${encodeURIComponent(m.userId)}/password`} csrf={frame.csrf} />
                  </td>
                ) : (
                  ''
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {manage ? (
        <>
          <h2>Invite someone</h2>
          <form method="post" action={`${base}/members/invite`} class="stack">
            <CsrfField token={frame.csrf} />
            <label>
              Email
              <input type="email" name="email" value={values?.email ?? ''} required maxlength="254" {...invalidAttrs(errors, 'email')} />
            </label>
            <FieldError id="email" message={errors.email} />
            <label>
              Role
              <RoleSelect name="role" selected="member" label="Role" />
            </label>
            <button type="submit">Create invitation link</button>
          </form>
          <h2>Pending invitations</h2>
          {invitations.length ? (
            <ul>
              {invitations.map((i) => (
                <li>
                  <span safe>{i.email}</span> as <span safe>{i.role}</span>, expires <span safe>{isoDay(i.expiresAt)}</span>{' '}
                  <form method="post" action={`${base}/invitations/${encodeURIComponent(i.id)}/revoke`} class="inline">
                    <CsrfField token={frame.csrf} />
                    <button
                      type="submit"
                      class="link"
                      data-confirm={`Revoke the invitation for ${i.email}? Its link stops working; you can invite them again later.`}
                      data-confirm-button="Revoke invitation"
                    >
                      Revoke
                    </button>
                  </form>
                </li>
              ))}
            </ul>
          ) : (
            <p class="hint">None.</p>
          )}
        </>
      ) : (
        <p class="hint">Only owners manage members.</p>
      )}
    </SettingsShell>
  );
}

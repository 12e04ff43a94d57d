/**
 * Settings → API keys and webhooks (routes/settings-integrations.tsx). A new key is shown once,
 * on the answer to the form that created it; afterwards only its partial form (`wm_…abcd`).
 */
import { escapeHtml } from '@kitajs/html';
import type { DeliveryAttemptResponse, DeliveryResponse, WebhookResponse } from '../../webhooks/schema.js';
import { RESOURCES } from '../../workspaces/api-keys.js';
import { can } from '../../users/roles.js';
import { CopyableSecret, CsrfField, FieldError, TableWrap, workspacePath } from '../layout.js';
import { invalidAttrs, type FormErrors } from '../form-errors.js';
import { SettingsShell, type WorkspaceFrame } from './settings.js';
import { WebhookFields, linkOptionsUrl, type WebhookChoices, type WebhookFormValues } from './webhook-form.js';

export { WEBHOOK_LINK_CHOICES, type WebhookChoices, type WebhookFormValues } from './webhook-form.js';

export interface KeyView {
  id: string;
  name: string;
  partialKey: string;
  scopes: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const path = (f: WorkspaceFrame, rest: string) => workspacePath(f.workspace.slug, `/settings/${rest}`);

export function KeysPage(v: { frame: WorkspaceFrame; keys: KeyView[]; created?: { name: string; key: string }; errors?: FormErrors; values?: { name: string } }): JSX.Element {
  const { frame } = v;
  const errors = v.errors ?? {};
  const owner = can(frame.role!, 'keys.manage');
  return (
    <SettingsShell frame={frame} current="keys" title="API keys" error={errors.form}>
      {v.created ? (
        <div class="created-key" role="status">
          <p safe>{`Key "${v.created.name}" created. Copy it now: it is not shown again.`}</p>
          <CopyableSecret id="new-api-key" value={v.created.key} label="Copy key" />
        </div>
      ) : (
        ''
      )}
      <TableWrap label="API keys">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col" class="optional">Last used</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {v.keys.map((k) => (
              <tr data-key-id={k.id}>
                <td safe>{k.name}</td>
                <td>
                  <code safe>{k.partialKey}</code>
                </td>
                <td safe>{k.scopes ?? 'Full access'}</td>
                <td class="optional">
                  {k.lastUsedAt ? (
                    <time datetime={k.lastUsedAt}>{escapeHtml(`${k.lastUsedAt.slice(0, 10)} ${k.lastUsedAt.slice(11, 16)} UTC`)}</time>
                  ) : (
                    'never'
                  )}
                </td>
                <td>
                  {k.revokedAt ? (
                    'Revoked'
                  ) : owner ? (
                    <form method="post" action={path(frame, `keys/${encodeURIComponent(k.id)}/revoke`)} class="inline">
                      <CsrfField token={frame.csrf} />
                      <button
                        type="submit"
                        class="danger"
                        data-confirm={`Revoke the API key “${k.name}” (${k.partialKey})? Every app or script using it gets 401 Unauthorized from now on. This cannot be undone: a new key must be created and given to them.`}
                        data-confirm-button="Revoke key"
                      >
                        Revoke
                      </button>
                    </form>
                  ) : (
                    'Active'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {owner ? (
        <form method="post" action={path(frame, 'keys')} class="stack">
          <CsrfField token={frame.csrf} />
          <h3>Create a key</h3>
          <label>
            Name
            <input type="text" name="name" value={v.values?.name ?? ''} maxlength="190" required {...invalidAttrs(errors, 'name')} />
          </label>
          <FieldError id="name" message={errors.name} />
          <fieldset {...invalidAttrs(errors, 'access')}>
            <legend>Access</legend>
            <FieldError id="access" message={errors.access} />
            <label class="inline">
              <input type="radio" name="access" value="all" checked /> Full access
            </label>
            <label class="inline">
              <input type="radio" name="access" value="read" /> Read only
            </label>
            <label class="inline">
              <input type="radio" name="access" value="custom" /> Per resource:
            </label>
            {RESOURCES.map((r) => (
              <label>
                {r}
                <select name={`scope_${r}`}>
                  <option value="">No access</option>
                  <option value="read">Read</option>
                  {r === 'analytics' ? '' : <option value="write">Read and write</option>}
                </select>
              </label>
            ))}
          </fieldset>
          <button type="submit">Create key</button>
        </form>
      ) : (
        <p class="hint">Only owners create and revoke API keys.</p>
      )}
    </SettingsShell>
  );
}

/** Which clicks a `link.clicked` webhook hears about, in words. */
function scopeText(w: WebhookResponse): string {
  if (!w.triggers.includes('link.clicked')) return '';
  if (w.linkScope === 'workspace') return 'Clicks of every link.';
  if (w.linkScope === 'folders') return `Clicks of links in ${w.folderIds.length} ${w.folderIds.length === 1 ? 'folder' : 'folders'}.`;
  return `Clicks of ${w.linkIds.length} chosen ${w.linkIds.length === 1 ? 'link' : 'links'}.`;
}

export function WebhooksPage(v: {
  frame: WorkspaceFrame;
  webhooks: WebhookResponse[];
  choices: WebhookChoices;
  errors?: FormErrors;
  values?: WebhookFormValues;
}): JSX.Element {
  const { frame } = v;
  const errors = v.errors ?? {};
  const values = v.values ?? {};
  const owner = can(frame.role!, 'settings.manage');
  return (
    <SettingsShell frame={frame} current="webhooks" title="Webhooks" error={errors.form}>
      {v.webhooks.length === 0 ? <p>No webhooks yet.</p> : ''}
      <ul class="plain-list">
        {v.webhooks.map((w) => (
          <li data-webhook-id={w.id}>
            <h3>
              <a href={path(frame, `webhooks/${encodeURIComponent(w.id)}`)} safe>
                {w.name}
              </a>
            </h3>
            <p class="url" safe>{w.url}</p>
            <p safe>{`Triggers: ${w.triggers.join(', ')}`}</p>
            {scopeText(w) ? <p safe>{scopeText(w)}</p> : ''}
            <p>{w.disabledAt ? <span class="error" safe>{`Disabled since ${w.disabledAt}`}</span> : <span class="notice">Enabled</span>}</p>
            {owner ? (
              <>
                <a href={path(frame, `webhooks/${encodeURIComponent(w.id)}/edit`)} aria-label={`Edit the webhook ${w.name}`}>
                  Edit
                </a>{' '}
                <form method="post" action={path(frame, `webhooks/${encodeURIComponent(w.id)}/${w.disabledAt ? 'enable' : 'disable'}`)} class="inline">
                  <CsrfField token={frame.csrf} />
                  <button type="submit" class="secondary">
                    {w.disabledAt ? 'Enable' : 'Disable'}
                  </button>
                </form>
                <form method="post" action={path(frame, `webhooks/${encodeURIComponent(w.id)}/delete`)} class="inline">
                  <CsrfField token={frame.csrf} />
                  <button
                    type="submit"
                    class="danger"
                    data-confirm={`Delete the webhook “${w.name}” (${w.url})? It stops receiving events at once and its delivery history is deleted. This cannot be undone.`}
                    data-confirm-button="Delete webhook"
                  >
                    Delete
                  </button>
                </form>
              </>
            ) : (
              ''
            )}
          </li>
        ))}
      </ul>
      {owner ? (
        <form method="post" action={path(frame, 'webhooks')} class="stack webhook-form">
          <CsrfField token={frame.csrf} />
          <h3>Create a webhook</h3>
          <WebhookFields choices={v.choices} errors={errors} values={values} optionsUrl={linkOptionsUrl(frame)} />
          <button type="submit">Create webhook</button>
        </form>
      ) : (
        <p class="hint">Only owners manage webhooks.</p>
      )}
    </SettingsShell>
  );
}

/** Every kept attempt of a delivery, newest first: a failure before a success stays visible. */
function DeliveryAttempts(v: { attempts: DeliveryAttemptResponse[] }): JSX.Element {
  return (
    <details class="attempts">
      <summary>
        {v.attempts.length} {v.attempts.length === 1 ? 'attempt' : 'attempts'}
      </summary>
      <ul>
        {v.attempts.map((a) => (
          <li data-attempt={a.attempt}>
            #{a.attempt} <span safe>{a.sentAt}</span> · HTTP {a.statusCode ?? '–'} · {a.latencyMs ?? '–'} ms
            {a.error ? (
              <>
                {' · '}
                <span class="error" safe>
                  {a.error}
                </span>
              </>
            ) : (
              ''
            )}
            {a.response ? (
              <pre class="response" safe>
                {a.response}
              </pre>
            ) : (
              ''
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

export function WebhookPage(v: { frame: WorkspaceFrame; webhook: WebhookResponse; deliveries: DeliveryResponse[] }): JSX.Element {
  const { frame, webhook } = v;
  const owner = can(frame.role!, 'settings.manage');
  return (
    <SettingsShell frame={frame} current="webhooks" title={`Webhook: ${webhook.name}`}>
      <p>
        <a href={path(frame, 'webhooks')}>← Webhooks</a>
      </p>
      <p class="url" safe>{webhook.url}</p>
      {owner ? (
        <>
          <p>
            <a href={path(frame, `webhooks/${encodeURIComponent(webhook.id)}/edit`)}>Edit this webhook</a>
          </p>
          <p>Signing secret (every delivery is signed with it; see docs/webhooks.md):</p>
          <code class="secret" safe>
            {webhook.secret}
          </code>
        </>
      ) : (
        ''
      )}
      <h3>Recent deliveries</h3>
      {v.deliveries.length === 0 ? (
        <p>No deliveries yet.</p>
      ) : (
        <TableWrap label="Recent deliveries">
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">HTTP</th>
                <th scope="col" class="optional">Error</th>
                <th scope="col">Attempts</th>
              </tr>
            </thead>
            <tbody>
              {v.deliveries.map((d) => (
                <tr data-delivery-id={d.id}>
                  <td safe>{d.createdAt}</td>
                  <td>{escapeHtml(d.event)}</td>
                  <td>{escapeHtml(d.status)}</td>
                  <td class="num">{d.statusCode ?? ''}</td>
                  <td class="optional" safe>{d.error ?? ''}</td>
                  <td>{d.attempts.length ? <DeliveryAttempts attempts={d.attempts} /> : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </SettingsShell>
  );
}

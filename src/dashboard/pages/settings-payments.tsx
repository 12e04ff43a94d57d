/**
 * Settings → Integrations (routes/settings-payments.tsx): per payment provider, the address to
 * give it, whether its signing secret is set (the secret itself is write-only: never shown again),
 * and the latest deliveries with their outcome. Owners edit; other roles read.
 */
import { escapeHtml } from '@kitajs/html';
import { can } from '../../users/roles.js';
import { CsrfField, workspacePath } from '../layout.js';
import { SettingsShell, type WorkspaceFrame } from './settings.js';

export interface ProviderView {
  provider: string;
  name: string;
  endpoint: string;
  configuredAt: string | null;
  /** docs/integrations/<provider>.md */
  docs: string;
}

export interface DeliveryView {
  provider: string;
  eventId: string;
  type: string;
  outcome: string;
  message: string;
  receivedAt: string;
}

const path = (f: WorkspaceFrame, rest: string) => workspacePath(f.workspace.slug, `/settings/integrations${rest}`);

const OUTCOME_LABELS: Record<string, string> = {
  recorded: 'Recorded',
  duplicate: 'Already recorded',
  skipped: 'Skipped (kept)',
  ignored: 'Ignored',
  processing: 'Processing',
};

export function PaymentIntegrationsPage(v: { frame: WorkspaceFrame; providers: ProviderView[]; deliveries: DeliveryView[]; error?: string; notice?: string }): JSX.Element {
  const { frame } = v;
  const owner = can(frame.role!, 'settings.manage');
  return (
    <SettingsShell frame={frame} current="integrations" title="Integrations" error={v.error} notice={v.notice}>
      <p>Sales straight from your payment provider: give it the address below and paste its signing secret here. Each paid order becomes a sale like one sent to /track/sale.</p>
      <ul class="plain-list">
        {v.providers.map((p) => (
          <li data-provider={p.provider}>
            <h3 safe>{p.name}</h3>
            <p>
              Endpoint address: <code class="url" safe>{p.endpoint}</code>
            </p>
            <p>
              {p.configuredAt ? (
                <span class="notice" safe>{`Signing secret set (${p.configuredAt.slice(0, 10)})`}</span>
              ) : (
                <span safe>{`Not set up: ${p.name} deliveries are refused until a signing secret is saved.`}</span>
              )}
            </p>
            {owner ? (
              <>
                <form method="post" action={path(frame, `/${encodeURIComponent(p.provider)}`)} class="stack">
                  <CsrfField token={frame.csrf} />
                  <label>
                    {escapeHtml(`${p.name} signing secret`)}
                    <input type="password" name="secret" autocomplete="off" maxlength="200" required placeholder={p.configuredAt ? 'Set a new secret' : ''} />
                  </label>
                  <button type="submit">{p.configuredAt ? 'Replace secret' : 'Save secret'}</button>
                </form>
                {p.configuredAt ? (
                  <form method="post" action={path(frame, `/${encodeURIComponent(p.provider)}/remove`)} class="inline">
                    <CsrfField token={frame.csrf} />
                    <button
                      type="submit"
                      class="danger"
                      data-confirm={`Remove the ${p.name} integration? Its deliveries are refused from now on, and sales it would send are not recorded until a secret is saved again.`}
                      data-confirm-button="Remove integration"
                    >
                      Remove
                    </button>
                  </form>
                ) : (
                  ''
                )}
              </>
            ) : (
              ''
            )}
          </li>
        ))}
      </ul>
      {owner ? '' : <p class="hint">Only owners set up integrations.</p>}
      <h3>Latest events received</h3>
      {v.deliveries.length === 0 ? (
        <p>No events received yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Provider</th>
                <th scope="col">Event</th>
                <th scope="col">Outcome</th>
                <th scope="col" class="optional">Details</th>
              </tr>
            </thead>
            <tbody>
              {v.deliveries.map((d) => (
                <tr data-event-id={d.eventId}>
                  <td>
                    <time datetime={d.receivedAt}>{escapeHtml(`${d.receivedAt.slice(0, 10)} ${d.receivedAt.slice(11, 16)} UTC`)}</time>
                  </td>
                  <td safe>{d.provider}</td>
                  <td>
                    <span safe>{d.type}</span> <code safe>{d.eventId}</code>
                  </td>
                  <td>
                    <span safe>{OUTCOME_LABELS[d.outcome] ?? d.outcome}</span>
                    {owner && d.outcome === 'skipped' ? (
                      <form method="post" action={path(frame, `/${encodeURIComponent(d.provider)}/events/${encodeURIComponent(d.eventId)}/retry`)} class="inline">
                        <CsrfField token={frame.csrf} />
                        <button type="submit" class="secondary">
                          Retry
                        </button>
                      </form>
                    ) : (
                      ''
                    )}
                  </td>
                  <td class="optional" safe>
                    {d.message}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </SettingsShell>
  );
}

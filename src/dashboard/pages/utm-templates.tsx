/**
 * Settings → UTM templates (routes/utm-templates.tsx): the workspace's saved UTM values, a form to
 * save one and a delete button for each. Owners and members write (`links.write`); viewers see the
 * list only (the server refuses their writes anyway: 403).
 */
import { can } from '../../users/roles.js';
import { UTM_COLUMNS } from '../../links/urls.js';
import { MAX_TEMPLATE_NAME, type UtmTemplate } from '../../utm-templates/schema.js';
import { CsrfField, FieldError, workspacePath } from '../layout.js';
import { DataTable, PostButton } from '../kit.js';
import { invalidAttrs, type FormErrors } from '../form-errors.js';
import { SettingsShell, type WorkspaceFrame } from './settings.js';

export const UTM_LABELS: Record<(typeof UTM_COLUMNS)[number], string> = {
  utm_source: 'Source',
  utm_medium: 'Medium',
  utm_campaign: 'Campaign',
  utm_term: 'Term',
  utm_content: 'Content',
};

export function UtmTemplatesPage(v: { frame: WorkspaceFrame; templates: UtmTemplate[]; errors?: FormErrors; values?: Record<string, string> }): JSX.Element {
  const errors = v.errors ?? {};
  const { frame } = v;
  const write = can(frame.role!, 'links.write');
  const action = workspacePath(frame.workspace.slug, '/settings/utm');
  return (
    <SettingsShell frame={frame} current="utm" title="UTM templates" error={errors.form}>
      <p class="hint">Saved UTM values: pick one under “UTM parameters” in the link builder to fill the fields.</p>
      {v.templates.length === 0 ? (
        <p>No UTM templates yet.</p>
      ) : (
        <DataTable label="UTM templates" class="utm-templates" columns={['Name', ...UTM_COLUMNS.map((c) => UTM_LABELS[c]), ...(write ? [{ hidden: 'Actions' }] : [])]}>
          {v.templates.map((t) => (
            <tr data-template-id={t.id}>
              <th scope="row" safe>
                {t.name}
              </th>
              {UTM_COLUMNS.map((c) => (
                <td safe>{t.values[c]}</td>
              ))}
              {write ? (
                <td>
                  <PostButton
                    action={`${action}/${encodeURIComponent(t.id)}/delete`}
                    csrf={frame.csrf}
                    label="Delete"
                    danger
                    confirm={`Delete the UTM template “${t.name}”? Links built with it keep their UTM values; it leaves the builder's list. This cannot be undone.`}
                    confirmButton="Delete template"
                  />
                </td>
              ) : (
                ''
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {write ? (
        <form method="post" action={action} class="stack">
          <CsrfField token={frame.csrf} />
          <h3>New template</h3>
          <label>
            Name
            <input type="text" name="name" value={v.values?.name ?? ''} maxlength={String(MAX_TEMPLATE_NAME)} required {...invalidAttrs(errors, 'name')} />
          </label>
          <FieldError id="name" message={errors.name} />
          <div class="row">
            {UTM_COLUMNS.map((c) => (
              <div>
                <label>
                  <span safe>{UTM_LABELS[c]}</span>
                  <input type="text" name={c} value={v.values?.[c] ?? ''} maxlength="190" {...invalidAttrs(errors, c)} />
                </label>
                <FieldError id={c} message={errors[c]} />
              </div>
            ))}
          </div>
          <button type="submit">Save template</button>
        </form>
      ) : (
        <p class="hint">Viewers cannot change UTM templates.</p>
      )}
    </SettingsShell>
  );
}

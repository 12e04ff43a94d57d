/**
 * The webhook form's fields (name, URL, triggers, and for `link.clicked` whose clicks: every link,
 * links in chosen folders, chosen links), shared by Settings → Webhooks' create form and a
 * webhook's edit page (routes/settings-integrations.tsx); webhook-form.ts reads them back.
 *
 * @example
 * <form method="post" action={editPath}><WebhookFields choices={choices} errors={errors} values={webhookValuesOf(webhook)} /></form>
 */
import { DOMAIN_EVENT_TYPES } from '../../outbox/outbox.js';
import type { WebhookResponse } from '../../webhooks/schema.js';
import { CsrfField, FieldError, workspacePath } from '../layout.js';
import { invalidAttrs, type FormErrors } from '../form-errors.js';
import { SettingsShell, type WorkspaceFrame } from './settings.js';
import { LinkPicker, type LinkChoice } from './link-picker.js';

/** What the webhook form's link picker offers: the newest links and every folder. */
export interface WebhookChoices {
  links: LinkChoice[];
  folders: { id: string; name: string }[];
  /** More links exist than `links` lists (the newest are offered). */
  moreLinks: boolean;
}

/** The webhook form as typed, to show it again with its errors. */
export interface WebhookFormValues {
  name?: string;
  url?: string;
  triggers?: string[];
  linkScope?: string;
  linkIds?: string[];
  folderIds?: string[];
}

export const WEBHOOK_LINK_CHOICES = 200;

const SCOPE_LABELS: Record<string, string> = {
  workspace: 'Every link of the workspace',
  folders: 'Links in the folders chosen below',
  links: 'The links chosen below',
};

/** Where the link picker asks for the links matching what is typed. */
export const linkOptionsUrl = (frame: WorkspaceFrame) => workspacePath(frame.workspace.slug, '/analytics/link-options');

/** What a stored webhook shows in its edit form. */
export function webhookValuesOf(w: WebhookResponse): WebhookFormValues {
  return { name: w.name, url: w.url, triggers: [...w.triggers], linkScope: w.linkScope ?? 'workspace', linkIds: [...w.linkIds], folderIds: [...w.folderIds] };
}

export function WebhookFields(v: { choices: WebhookChoices; errors: FormErrors; values: WebhookFormValues; optionsUrl: string }): JSX.Element {
  const { choices, errors, values } = v;
  const triggers = new Set(values.triggers ?? []);
  const scope = values.linkScope ?? 'workspace';
  const pickedFolders = new Set(values.folderIds ?? []);
  return (
    <>
      <label>
        Name
        <input type="text" name="name" value={values.name ?? ''} maxlength="190" required {...invalidAttrs(errors, 'name')} />
      </label>
      <FieldError id="name" message={errors.name} />
      <label>
        URL
        <input type="url" name="url" value={values.url ?? ''} placeholder="https://example.com/hooks/waymark" required {...invalidAttrs(errors, 'url')} />
      </label>
      <FieldError id="url" message={errors.url} />
      <fieldset {...invalidAttrs(errors, 'triggers')}>
        <legend>Triggers</legend>
        {DOMAIN_EVENT_TYPES.map((t) => (
          <label class="inline">
            <input type="checkbox" name={`trigger_${t}`} value="on" checked={triggers.has(t)} data-linkscope-trigger={t === 'link.clicked' ? '' : undefined} /> {t}
          </label>
        ))}
        <FieldError id="triggers" message={errors.triggers} />
      </fieldset>
      <fieldset data-linkscope="" class="link-scope" {...invalidAttrs(errors, 'linkScope')}>
        <legend>Clicks of which links (for link.clicked)</legend>
        {(['workspace', 'folders', 'links'] as const).map((s) => (
          <label class="inline">
            <input type="radio" name="linkScope" value={s} checked={scope === s} /> <span safe>{SCOPE_LABELS[s]}</span>
          </label>
        ))}
        <FieldError id="linkScope" message={errors.linkScope} />
        <fieldset data-linkscope-for="folders" class="pick-list">
          <legend>Folders</legend>
          {choices.folders.length === 0 ? <p class="hint">This workspace has no folders yet.</p> : ''}
          {choices.folders.map((f) => (
            <label class="inline">
              <input type="checkbox" name={`folder_${f.id}`} value="on" checked={pickedFolders.has(f.id)} /> <span safe>{f.name}</span>
            </label>
          ))}
        </fieldset>
        <fieldset data-linkscope-for="links" class="pick-list">
          <legend>Links</legend>
          <LinkPicker many id="webhook-link-choices" optionsUrl={v.optionsUrl} search="" links={choices.links} selected={values.linkIds ?? []} />
          {choices.moreLinks ? (
            <p class="hint">{`The ${WEBHOOK_LINK_CHOICES} newest links are listed: find others by their key or destination, or choose their folder.`}</p>
          ) : (
            ''
          )}
        </fieldset>
      </fieldset>
    </>
  );
}

/** A webhook's edit page (owners): the create form's fields, filled in, saved with the API's PATCH. */
export function WebhookEditPage(v: { frame: WorkspaceFrame; webhook: WebhookResponse; choices: WebhookChoices; errors?: FormErrors; values?: WebhookFormValues }): JSX.Element {
  const { frame, webhook } = v;
  const errors = v.errors ?? {};
  const at = (rest: string) => workspacePath(frame.workspace.slug, `/settings/webhooks/${encodeURIComponent(webhook.id)}${rest}`);
  return (
    <SettingsShell frame={frame} current="webhooks" title={`Edit webhook: ${webhook.name}`} error={errors.form}>
      <p>
        <a href={at('')}>← Back to the webhook</a>
      </p>
      {webhook.disabledAt ? <p class="hint">This webhook is disabled: saving the form enables it again.</p> : ''}
      <form method="post" action={at('/edit')} class="stack webhook-form">
        <CsrfField token={frame.csrf} />
        <WebhookFields choices={v.choices} errors={errors} values={v.values ?? webhookValuesOf(webhook)} optionsUrl={linkOptionsUrl(frame)} />
        <button type="submit">Save webhook</button>
      </form>
    </SettingsShell>
  );
}

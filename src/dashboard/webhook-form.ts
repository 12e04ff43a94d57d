/**
 * The dashboard's webhook form → the API's `CreateWebhookBody`, with every refusal a sentence at
 * its field: name, URL, triggers, and for `link.clicked` the links whose clicks are sent
 * (`linkScope`: every link, links in chosen folders, chosen links). Pure: the route calls the
 * webhooks service with the result, and `webhookRefusal` words what the service still refuses
 * (a private address, a link deleted meanwhile).
 *
 * @example
 * const values = webhookFormValues({ name: 'CRM', url: 'https://crm.example.com/in', 'trigger_link.clicked': 'on', linkScope: 'links', link_link_1: 'on' });
 * webhookFormInput(values); // { ok: true, input: { name: 'CRM', …, triggers: ['link.clicked'], linkScope: 'links', linkIds: ['link_1'] } }
 */
import { ApiError } from '../http/errors.js';
import { DOMAIN_EVENT_TYPES } from '../outbox/outbox.js';
import { CreateWebhookBody, LINK_SCOPES, type CreateWebhookInput } from '../webhooks/schema.js';
import { errorsOfRefusal, parseForm, type FormErrors } from './form-errors.js';
import type { WebhookFormValues } from './pages/webhook-form.js';

type Form = Record<string, string | undefined>;

const LABELS = { name: 'the name', url: 'the URL', triggers: 'the triggers', linkScope: 'the links' };

/** The ticked `<prefix><id>` checkboxes' ids. */
const ticked = (body: Form, prefix: string) =>
  Object.keys(body)
    .filter((k) => k.startsWith(prefix) && body[k])
    .map((k) => k.slice(prefix.length));

/** The form's fields as typed (ticked triggers, links and folders by id). */
export function webhookFormValues(body: Form | undefined): WebhookFormValues {
  const b = body ?? {};
  return {
    name: b.name ?? '',
    url: (b.url ?? '').trim(),
    triggers: DOMAIN_EVENT_TYPES.filter((t) => b[`trigger_${t}`]),
    linkScope: b.linkScope,
    linkIds: ticked(b, 'link_'),
    folderIds: ticked(b, 'folder_'),
  };
}

/** The API's body, or a sentence per field. The link choice counts only with `link.clicked`. */
export function webhookFormInput(values: WebhookFormValues): { ok: true; input: CreateWebhookInput } | { ok: false; errors: FormErrors } {
  const errors: FormErrors = {};
  const clicked = values.triggers?.includes('link.clicked') ?? false;
  const scope = LINK_SCOPES.find((s) => s === values.linkScope);
  const body: Record<string, unknown> = { name: values.name, url: values.url, triggers: values.triggers ?? [] };
  if (clicked) {
    if (!scope) errors.linkScope = 'Choose whose clicks to send: every link, links in chosen folders, or chosen links.';
    else if (scope === 'links' && !values.linkIds?.length) errors.linkScope = 'Tick at least one link whose clicks to send (or choose every link).';
    else if (scope === 'folders' && !values.folderIds?.length) errors.linkScope = 'Tick at least one folder whose links’ clicks to send (or choose every link).';
    body.linkScope = scope;
    if (scope === 'links') body.linkIds = values.linkIds;
    if (scope === 'folders') body.folderIds = values.folderIds;
  }
  const parsed = parseForm(CreateWebhookBody, body, LABELS);
  if (!parsed.ok) Object.assign(errors, { ...parsed.errors, ...errors });
  if (!parsed.ok && parsed.errors.triggers) errors.triggers = 'Tick at least one event to send (link.clicked, lead.created…).';
  if (Object.keys(errors).length || !parsed.ok) return { ok: false, errors };
  return { ok: true, input: parsed.data };
}

/** What the webhooks service refused, at its field, in plain words. */
export function webhookRefusal(err: unknown): FormErrors {
  if (err instanceof ApiError && /^Invalid (linkIds|folderIds) detected/.test(err.message)) {
    const what = err.message.startsWith('Invalid linkIds') ? 'link' : 'folder';
    return { linkScope: `A chosen ${what} no longer exists (deleted meanwhile?): reload the page and choose again.` };
  }
  if (err instanceof ApiError && err.status === 403) return { form: `${err.message} Delete one you no longer use first.` };
  return errorsOfRefusal(err, LABELS);
}

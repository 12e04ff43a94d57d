/**
 * The link builder: one form to create a link or edit one (routes/link-builder.tsx). Works as a
 * plain POST; htmx checks the key as it is typed, and links.js keeps the destination's query in
 * step with the UTM fields. Field names are listed in link-form.ts.
 */
import { escapeHtml } from '@kitajs/html';
import { CsrfField, FormError, Layout, workspacePath, type Frame } from '../layout.js';
import { GEO_BLANK_ROWS, VARIANT_ROWS, expiryOf, geoRowCount, type FieldErrors, type FormValues } from '../link-form.js';
import { UTM_COLUMNS } from '../../links/urls.js';
import type { LinkResponse } from '../../links/schema.js';
import { Totals } from './analytics-parts.js';
import { linkAnalyticsHref } from './links.js';
import { formatCount } from '../format.js';
import { COUNTRIES, countryCodeOf, countryLabel } from '../countries.js';
import { UTM_LABELS } from './utm-templates.js';
import type { UtmTemplate } from '../../utm-templates/schema.js';

/**
 * The expiry, typed in the browser's time zone: links.js converts the visible `expiresAtLocal`
 * (seconds kept) into the hidden `expiresAt` (ISO, UTC) as it is typed, shows the zone, and
 * the past-date warning; the saved value comes back as `data-utc` and is shown in local time.
 * Without JavaScript the hidden field stays empty and the visible one is read as UTC.
 */
function Expiry({ values, error, now }: { values: FormValues; error?: string; now: number }): JSX.Element {
  const chosen = expiryOf(values);
  const past = chosen !== undefined && chosen <= now;
  return (
    <label>
      <span>Expires at</span>
      <input
        type="datetime-local"
        name="expiresAtLocal"
        step="1"
        value={values.expiresAtLocal ?? ''}
        data-local-time="expiresAt"
        data-utc={values.expiresAt || undefined}
        data-past-warning="expiry-past"
        data-zone-label="expiry-zone"
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? 'err-expiresAt expiry-zone' : 'expiry-zone'}
      />
      <input type="hidden" name="expiresAt" value="" />
      <span class="hint" id="expiry-zone">
        In UTC.
      </span>
      <span class="warning" id="expiry-past" role="status" hidden={!past}>
        This date is in the past: the link expires as soon as it is saved.
      </span>
      <Err id="expiresAt" message={error} />
    </label>
  );
}

/** The country a geo row's text stands for, by name with its flag, once it is one. */
function CountryHint({ text }: { text: string }): JSX.Element {
  const code = text.trim() ? countryCodeOf(text) : undefined;
  if (!code) return '';
  return (
    <span class="hint country-name" safe>
      {countryLabel(code)}
    </span>
  );
}

export interface LinkBuilderView {
  frame: Frame & { workspace: { slug: string } };
  /** Absent when creating. */
  link?: Pick<LinkResponse, 'id' | 'shortLink' | 'clicks' | 'leads' | 'sales' | 'saleAmount' | 'publicStats'>;
  /** The link's public stats page (absolute), when editing. */
  statsUrl?: string;
  /** Just created or saved (the redirect after the POST says so). */
  saved?: 'created' | 'saved';
  values: FormValues;
  errors: FieldErrors;
  domains: string[];
  tags: { id: string; name: string }[];
  folders: { id: string; name: string }[];
  /** The workspace's UTM templates (the picker). */
  utmTemplates?: UtmTemplate[];
  /** The time the page is drawn at (the past-date warning); tests pass their clock. */
  now?: number;
}

function Err({ id, message }: { id: string; message?: string }): JSX.Element {
  if (!message) return '';
  return (
    <p class="error" id={`err-${id}`} role="alert" safe>
      {message}
    </p>
  );
}

/**
 * A labelled text input whose error, if any, is printed under it and tied to it for screen readers.
 * `extra` attributes are data-* and autocomplete only: never `attrs`, which @kitajs/html prints raw.
 */
function Text(p: { name: string; label: string; values: FormValues; error?: string; errorId?: string; type?: string; hint?: string; required?: boolean; maxlength?: string; extra?: Partial<Record<`data-${string}` | 'autocomplete', string>> }): JSX.Element {
  const errorId = p.errorId ?? p.name;
  return (
    <label>
      <span safe>{p.label}</span>
      <input
        type={p.type ?? 'text'}
        name={p.name}
        value={p.values[p.name] ?? ''}
        required={p.required}
        maxlength={p.maxlength}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={p.error ? `err-${errorId}` : undefined}
        {...(p.extra ?? {})}
      />
      {p.hint ? <span class="hint" safe>{p.hint}</span> : ''}
      <Err id={errorId} message={p.error} />
    </label>
  );
}

function qrHref(shortLink: string, format: 'png' | 'svg', size: number): string {
  return `/qr?${new URLSearchParams({ url: shortLink, format, size: String(size) })}`;
}

/**
 * The card a social network would show for the saved (or typed) preview fields: the title, the
 * description and the destination's host. The image is named, not loaded: the page's CSP keeps
 * other sites' images out of the dashboard.
 */
function PreviewCard({ values }: { values: FormValues }): JSX.Element {
  const title = (values.title ?? '').trim();
  const description = (values.description ?? '').trim();
  const image = (values.image ?? '').trim();
  if (!title && !description && !image) return <p class="hint">Fill the title, description or image to set a custom preview.</p>;
  let host = '';
  try {
    host = new URL((values.url ?? '').trim()).host;
  } catch {
    host = '';
  }
  return (
    <figure class="preview-card" aria-label="Preview card">
      <div class="preview-image">{image ? escapeHtml(`Image: ${image}`) : 'No image'}</div>
      <figcaption>
        <span class="hint" safe>
          {host}
        </span>
        <strong safe>{title || '(no title)'}</strong>
        <span safe>{description}</span>
      </figcaption>
    </figure>
  );
}

/**
 * The UTM template picker. Choosing one fills the UTM fields (links.js reads the option's
 * `data-utm_*`); the select and its *Apply* button belong to the small GET form
 * `#utm-template-form` (their `form` attribute), not to the builder, so Enter in the builder
 * still saves the link. Without JavaScript *Apply* reloads the builder with `?utmTemplate=<id>`.
 */
function TemplatePicker({ templates, chosen, slug }: { templates: UtmTemplate[]; chosen?: string; slug: string }): JSX.Element {
  if (!templates.length) {
    return (
      <p class="hint">
        Reuse UTM values: save them as a template under <a href={workspacePath(slug, '/settings/utm')}>Settings → UTM templates</a>.
      </p>
    );
  }
  return (
    <div class="template-picker">
      <label>
        UTM template
        <select name="utmTemplate" form="utm-template-form" data-utm-template="link-builder">
          <option value="">Choose a template…</option>
          {templates.map((t) => (
            <option
              value={t.id}
              selected={t.id === chosen}
              data-utm_source={t.values.utm_source}
              data-utm_medium={t.values.utm_medium}
              data-utm_campaign={t.values.utm_campaign}
              data-utm_term={t.values.utm_term}
              data-utm_content={t.values.utm_content}
              safe
            >
              {t.name}
            </option>
          ))}
        </select>
      </label>{' '}
      <button type="submit" form="utm-template-form" class="secondary" data-no-js="">
        Apply template
      </button>
    </div>
  );
}

/**
 * The social preview's fields and card, also answered alone by `POST …/links/preview-fetch`
 * (htmx swaps it in place): *Fetch from destination* sends the form and gets these fields back,
 * filled from the destination's own card. The button needs JavaScript (it starts hidden and
 * links.js reveals it); it is `type="button"`, so Enter in the form still saves the link.
 */
export function PreviewFields({ values, errors, fetchUrl, fetched }: { values: FormValues; errors: FieldErrors; fetchUrl: string; fetched?: { ok: boolean; message: string } }): JSX.Element {
  return (
    <fieldset id="preview-fields">
      <legend>Social preview</legend>
      <label class="inline">
        <input type="checkbox" name="proxy" value="on" checked={!!values.proxy} /> Custom link preview: social networks and chat apps show the
        title, description and image below instead of the destination's own
      </label>
      <p class="fetch-preview">
        <button
          type="button"
          class="secondary"
          hx-post={fetchUrl}
          hx-include="#link-builder"
          hx-target="#preview-fields"
          hx-swap="outerHTML"
          data-needs-js=""
          hidden
        >
          Fetch from destination
        </button>{' '}
        {fetched ? (
          <span class={fetched.ok ? 'notice' : 'error'} role="status" id="fetch-status" safe>
            {fetched.message}
          </span>
        ) : (
          <span class="hint" id="fetch-status">
            Reads the destination page's own title, description and image.
          </span>
        )}
      </p>
      <Text name="title" label="Title" values={values} maxlength="120" extra={{ 'data-preview': '' }} />
      <label>
        Description
        <textarea name="description" rows="2" maxlength="240" data-preview="" safe>
          {values.description ?? ''}
        </textarea>
      </label>
      <Text name="image" label="Image URL" type="url" values={values} extra={{ 'data-preview': '' }} />
      <Err id="preview" message={errors.preview} />
      <PreviewCard values={values} />
    </fieldset>
  );
}

/** The edit page's head: the full short link with *Copy*, its figures (all time) and its QR code. */
function LinkSummary({ link, slug, csrf }: { link: NonNullable<LinkBuilderView['link']>; slug: string; csrf: string }): JSX.Element {
  const counts = `${formatCount(link.clicks)} clicks, ${formatCount(link.leads)} leads and ${formatCount(link.sales)} sales`;
  return (
    <section class="link-summary" aria-label="This link">
      <div>
        <p class="short-link-line">
          <a href={link.shortLink} class="short-link" safe>
            {link.shortLink}
          </a>{' '}
          <button type="button" class="link copy" data-copy={link.shortLink} hidden>
            Copy
          </button>
        </p>
        <Totals count={{ clicks: link.clicks, leads: link.leads, sales: link.sales, saleAmount: link.saleAmount }} />
        <p>
          <a href={linkAnalyticsHref(slug, link.id)}>Analytics of this link</a>
        </p>
        <form method="post" action={workspacePath(slug, `/links/${encodeURIComponent(link.id)}/delete`)} class="inline">
          <CsrfField token={csrf} />
          <button
            type="submit"
            class="danger"
            data-confirm={`Delete ${link.shortLink}? It stops redirecting at once (visitors get the not-found page), and it leaves the links list, Top links and the event list. Its ${counts} stay in the workspace's totals. This cannot be undone.`}
            data-confirm-button="Delete link"
          >
            Delete link
          </button>
        </form>
      </div>
      <figure class="qr">
        <img src={qrHref(link.shortLink, 'svg', 160)} width="160" height="160" alt={`QR code of ${link.shortLink}`} />
        <figcaption>
          <a href={qrHref(link.shortLink, 'png', 1000)} download="qr.png" hx-boost="false">
            PNG
          </a>{' '}
          <a href={qrHref(link.shortLink, 'svg', 1000)} download="qr.svg" hx-boost="false">
            SVG
          </a>
        </figcaption>
      </figure>
    </section>
  );
}

export function LinkBuilderPage(v: LinkBuilderView): JSX.Element {
  const { frame, values, errors } = v;
  const base = workspacePath(frame.workspace.slug, '/links');
  const action = v.link ? `${base}/${encodeURIComponent(v.link.id)}/edit` : `${base}/new`;
  const title = v.link ? 'Edit link' : 'New link';
  const geoRows = geoRowCount(values);
  const domainChoices = values.domain && !v.domains.includes(values.domain) ? [values.domain, ...v.domains] : v.domains;
  return (
    <Layout frame={frame} title={title} section="links">
      <h1>{title}</h1>
      {v.link && v.saved ? (
        <p class="notice saved" role="status">
          <span>{v.saved === 'created' ? 'Link created: ' : 'Link saved: '}</span>
          <a href={v.link.shortLink} class="short-link" safe>
            {v.link.shortLink}
          </a>{' '}
          <button type="button" class="link copy" data-copy={v.link.shortLink} hidden>
            Copy
          </button>
        </p>
      ) : (
        ''
      )}
      <p>
        <a href={base}>Back to links</a>
      </p>
      {v.link ? <LinkSummary link={v.link} slug={frame.workspace.slug} csrf={frame.csrf} /> : ''}
      <FormError message={errors.form} />
      <form method="post" action={action} class="builder" id="link-builder" novalidate>
        <CsrfField token={frame.csrf} />
        {v.link ? <input type="hidden" name="linkId" value={v.link.id} /> : ''}
        <fieldset>
          <legend>Destination and short link</legend>
          <Text name="url" label="Destination URL" type="url" values={values} error={errors.url} required maxlength="32000" extra={{ 'data-utm-target': '' }} />
          <div class="row">
            <label>
              Domain
              <select
                name="domain"
                hx-get={`${base}/key-check`}
                hx-trigger="change"
                hx-include="#link-builder [name=key], #link-builder [name=linkId]"
                hx-target="#key-status"
                aria-invalid={errors.domain ? 'true' : undefined} aria-describedby={errors.domain ? 'err-domain' : undefined}>
                {domainChoices.map((d) => (
                  <option value={d} selected={d === values.domain} safe>
                    {d}
                  </option>
                ))}
              </select>
              <Err id="domain" message={errors.domain} />
            </label>
            <label>
              Key
              <input
                type="text"
                name="key"
                value={values.key ?? ''}
                maxlength="190"
                placeholder="random when empty"
                autocomplete="off"
                hx-get={`${base}/key-check`}
                hx-trigger="input changed delay:400ms"
                hx-include="#link-builder [name=domain], #link-builder [name=linkId]"
                hx-target="#key-status"
                hx-swap="innerHTML"
                aria-invalid={errors.key ? 'true' : undefined}
                aria-describedby={errors.key ? 'err-key key-status' : 'key-status'}
              />
              <span id="key-status" class="hint" aria-live="polite"></span>
              <Err id="key" message={errors.key} />
            </label>
          </div>
        </fieldset>

        <fieldset class="share">
          <legend>Share stats</legend>
          <label class="inline">
            <input type="checkbox" name="publicStats" value="on" checked={!!values.publicStats} /> Share stats: anyone with the address sees this link's clicks
          </label>
          <label class="inline">
            <input type="checkbox" name="publicConversions" value="on" checked={!!values.publicConversions} /> Also show leads, sales and revenue
          </label>
          {v.link?.publicStats && v.statsUrl ? (
            <p class="stats-url">
              <span>Public stats: </span>
              <a href={v.statsUrl} hx-boost="false" safe>
                {v.statsUrl}
              </a>{' '}
              <button type="button" class="link copy" data-copy={v.statsUrl} hidden>
                Copy
              </button>
            </p>
          ) : (
            <p class="hint">Save with “Share stats” ticked to get the page's address.</p>
          )}
        </fieldset>

        <fieldset class="utm">
          <legend>UTM parameters</legend>
          <p class="hint">Added to the destination's query string.</p>
          <TemplatePicker templates={v.utmTemplates ?? []} chosen={values.utmTemplate} slug={frame.workspace.slug} />
          <div class="row">
            {UTM_COLUMNS.map((c) => (
              <Text name={c} label={UTM_LABELS[c]} values={values} maxlength="190" extra={{ 'data-utm': c }} />
            ))}
          </div>
          <Err id="utm" message={errors.utm} />
        </fieldset>

        <fieldset>
          <legend>Organise</legend>
          {v.tags.length ? (
            <div class="choices" role="group" aria-label="Tags">
              {v.tags.map((t) => (
                <label class="inline">
                  <input type="checkbox" name={`tag_${t.id}`} value="on" checked={!!values[`tag_${t.id}`]} /> <span safe>{t.name}</span>
                </label>
              ))}
            </div>
          ) : (
            <p class="hint">No tags in this workspace yet.</p>
          )}
          <Err id="tags" message={errors.tags} />
          <label>
            Folder
            <select name="folderId">
              <option value="">No folder</option>
              {v.folders.map((f) => (
                <option value={f.id} selected={f.id === values.folderId} safe>
                  {f.name}
                </option>
              ))}
            </select>
            <Err id="folderId" message={errors.folderId} />
          </label>
          <label class="inline">
            <input type="checkbox" name="trackConversion" value="on" checked={!!values.trackConversion} /> Track conversions (leads and sales
            reported by your app are attributed to this link)
          </label>
        </fieldset>

        <fieldset>
          <legend>Expiry and access</legend>
          <div class="row">
            <Expiry values={values} error={errors.expiresAt} now={v.now ?? Date.now()} />
            <Text name="expiredUrl" label="After expiry, send to" type="url" values={values} error={errors.expiredUrl} />
          </div>
          <Text name="password" label="Password" type="password" values={values} error={errors.password} hint="Visitors must type it before they are sent on." extra={{ autocomplete: 'new-password' }} />
        </fieldset>

        <fieldset>
          <legend>Device and country targeting</legend>
          <div class="row">
            <Text name="ios" label="iOS destination" type="url" values={values} error={errors.ios} />
            <Text name="android" label="Android destination" type="url" values={values} error={errors.android} />
          </div>
          <table class="rows">
            <caption class="hint">Countries (type a name such as Germany, or its code, DE, and pick it from the list) and where to send their visitors. Leave a row empty to skip it.</caption>
            <thead>
              <tr>
                <th scope="col">Country</th>
                <th scope="col">URL</th>
              </tr>
            </thead>
            <tbody>
              {Array.from({ length: geoRows }, (_, i) => (
                <tr>
                  <td>
                    <input
                      type="text"
                      name={`geo_country_${i}`}
                      value={values[`geo_country_${i}`] ?? ''}
                      maxlength="60"
                      list="countries"
                      autocomplete="off"
                      aria-label={`Country ${i + 1}`}
                      aria-invalid={errors.geo ? 'true' : undefined}
                      aria-describedby={errors.geo ? 'err-geo' : undefined}
                      class="country"
                    />
                    <CountryHint text={values[`geo_country_${i}`] ?? ''} />
                  </td>
                  <td>
                    <input type="url" name={`geo_url_${i}`} value={values[`geo_url_${i}`] ?? ''} aria-label={`URL for country ${i + 1}`} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <datalist id="countries">
            {COUNTRIES.map((c) => (
              <option value={c.code} safe>
                {c.name}
              </option>
            ))}
          </datalist>
          {geoRows > GEO_BLANK_ROWS ? '' : <p class="hint">Save to get more rows.</p>}
          <Err id="geo" message={errors.geo} />
        </fieldset>

        <fieldset>
          <legend>A/B test</legend>
          <p class="hint">2 to 4 destinations; each takes 10–90 % of the traffic and together 100 %. Needs “Track conversions” (under Organise).</p>
          <table class="rows">
            <thead>
              <tr>
                <th scope="col">Variant URL</th>
                <th scope="col">Traffic %</th>
              </tr>
            </thead>
            <tbody>
              {Array.from({ length: VARIANT_ROWS }, (_, i) => (
                <tr>
                  <td>
                    <input type="url" name={`variant_url_${i}`} value={values[`variant_url_${i}`] ?? ''} aria-label={`Variant ${i + 1} URL`} />
                  </td>
                  <td>
                    <input type="number" name={`variant_percentage_${i}`} value={values[`variant_percentage_${i}`] ?? ''} min="10" max="90" aria-label={`Variant ${i + 1} traffic percentage`} class="short" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Err id="variants" message={errors.variants} />
        </fieldset>

        <PreviewFields values={values} errors={errors} fetchUrl={`${base}/preview-fetch`} />

        <p class="actions">
          <button type="submit">{v.link ? 'Save link' : 'Create link'}</button>
        </p>
      </form>

      <form method="get" action={action} id="utm-template-form" hidden></form>
      {v.link ? '' : <p class="hint">The QR code and the link's figures appear at the top once the link is created.</p>}
    </Layout>
  );
}

/**
 * Settings pages (routes/settings.tsx): the sub-navigation, the workspace's name and slug, its
 * domains, tags and folders. Forms that a role may not use are not shown (the server refuses them
 * anyway: 403).
 */
import type { Children } from '@kitajs/html';
import type { DomainResponse } from '../../domains/schema.js';
import type { FolderResponse } from '../../folders/schema.js';
import type { TagResponse } from '../../tags/schema.js';
import { can } from '../../users/roles.js';
import { CsrfField, FieldError, FormError, Layout, workspacePath, type Frame } from '../layout.js';
import { invalidAttrs, type FormErrors } from '../form-errors.js';
import { TAG_COLORS } from '../../links/response.js';

export type WorkspaceFrame = Frame & { workspace: { slug: string; name: string } };

export const SETTINGS_PAGES = [
  { id: 'general', label: 'General' },
  { id: 'domains', label: 'Domains' },
  { id: 'tags', label: 'Tags' },
  { id: 'folders', label: 'Folders' },
  { id: 'utm', label: 'UTM templates' },
  { id: 'bio', label: 'Bio pages' },
  { id: 'keys', label: 'API keys' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'integrations', label: 'Integrations' },
  { id: 'members', label: 'Members' },
  { id: 'audit', label: 'Audit log' },
] as const;
export type SettingsPageId = (typeof SETTINGS_PAGES)[number]['id'];

/** A settings page: the layout, the settings' own navigation, an error or a notice. */
export function SettingsShell(p: { frame: WorkspaceFrame; current: SettingsPageId; title: string; error?: string; notice?: string; children?: Children }): JSX.Element {
  return (
    <Layout frame={p.frame} title={`${p.title} · Settings`} section="settings">
      <h1>Settings</h1>
      <nav class="tabs" aria-label="Settings">
        <ul>
          {SETTINGS_PAGES.filter((s) => s.id !== 'audit' || can(p.frame.role!, 'audit.read')).map((s) => (
            <li>
              <a href={workspacePath(p.frame.workspace.slug, `/settings/${s.id}`)} aria-current={s.id === p.current ? 'page' : undefined}>
                {s.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <h2 safe>{p.title}</h2>
      <FormError message={p.error} />
      {p.notice ? (
        <p class="notice" role="status" safe>
          {p.notice}
        </p>
      ) : (
        ''
      )}
      {p.children}
    </Layout>
  );
}

const path = (f: WorkspaceFrame, rest: string) => workspacePath(f.workspace.slug, `/settings/${rest}`);

export function GeneralPage({ frame, errors = {}, values }: { frame: WorkspaceFrame; errors?: FormErrors; values?: { name?: string; slug?: string } }): JSX.Element {
  const owner = can(frame.role!, 'settings.manage');
  return (
    <SettingsShell frame={frame} current="general" title="General" error={errors.form}>
      <form method="post" action={path(frame, 'general')} class="stack">
        <CsrfField token={frame.csrf} />
        <label>
          Workspace name
          <input type="text" name="name" value={values?.name ?? frame.workspace.name} maxlength="32" required disabled={!owner} {...invalidAttrs(errors, 'name')} />
        </label>
        <FieldError id="name" message={errors.name} />
        <label>
          Slug
          <input type="text" name="slug" value={values?.slug ?? frame.workspace.slug} minlength="3" maxlength="48" pattern="[A-Za-z0-9\-]+" required disabled={!owner} {...invalidAttrs(errors, 'slug')} />
        </label>
        <FieldError id="slug" message={errors.slug} />
        <p class="hint">The slug is part of every dashboard address; changing it changes them.</p>
        {owner ? <button type="submit">Save</button> : <p class="hint">Only owners change these settings.</p>}
      </form>
    </SettingsShell>
  );
}

export interface DomainsView {
  frame: WorkspaceFrame;
  domains: DomainResponse[];
  /** Where DNS must point for a domain to verify (CNAME target). */
  dnsTarget: string;
  /** Refusals by field: the add form's `slug`, or `notFoundUrl` of the domain `errorsOf`. */
  errors?: FormErrors;
  errorsOf?: string;
  values?: Record<string, string>;
  notice?: string;
}

export function DomainsPage(v: DomainsView): JSX.Element {
  const { frame } = v;
  const owner = can(frame.role!, 'settings.manage');
  const errors = v.errors ?? {};
  return (
    <SettingsShell frame={frame} current="domains" title="Domains" error={errors.form} notice={v.notice}>
      {v.domains.length === 0 ? (
        <p>No domains yet.</p>
      ) : (
        <ul class="plain-list">
          {v.domains.map((d) => (
            <li data-domain={d.slug}>
              <h3 safe>{d.slug}</h3>
              <p>
                {d.verified ? <span class="notice">Verified</span> : <span class="error">Not verified</span>}
                {d.primary ? ' · default for new links' : ''}
              </p>
              {
                <>
                  <p class="hint">
                    {d.verified ? 'The DNS record that sends this domain’s visitors here:' : 'To verify, set this record at your DNS provider, then check again:'}
                  </p>
                  <div class="table-wrap">
                    <table class="dns-records" aria-label={`DNS record for ${d.slug}`}>
                      <thead>
                        <tr>
                          <th scope="col">Type</th>
                          <th scope="col">Name</th>
                          <th scope="col">Value</th>
                        </tr>
                      </thead>
                      <tbody>
                        <tr>
                          <td>CNAME</td>
                          <td>
                            <code safe>{d.slug}</code>
                          </td>
                          <td>
                            <code safe>{v.dnsTarget}</code>
                          </td>
                        </tr>
                      </tbody>
                    </table>
                  </div>
                  <p class="hint">
                    A domain's root (no subdomain) cannot have a CNAME at most providers: use <code>A</code>/<code>AAAA</code> records with the
                    addresses of <code safe>{v.dnsTarget}</code> instead (or the provider's ALIAS/ANAME record).
                  </p>
                </>
              }
              {owner ? (
                <>
                  <form method="post" action={path(frame, `domains/${encodeURIComponent(d.slug)}/check`)} class="inline">
                    <CsrfField token={frame.csrf} />
                    <button type="submit" class="secondary">
                      Check DNS
                    </button>
                  </form>
                  <form method="post" action={path(frame, `domains/${encodeURIComponent(d.slug)}`)} class="inline">
                    <CsrfField token={frame.csrf} />
                    <label>
                      Not-found URL
                      <input
                        type="url"
                        name="notFoundUrl"
                        value={v.errorsOf === d.slug ? (v.values?.notFoundUrl ?? '') : (d.notFoundUrl ?? '')}
                        placeholder="https://example.com/"
                        maxlength="32000"
                        {...(v.errorsOf === d.slug ? invalidAttrs(errors, 'notFoundUrl') : {})}
                      />
                    </label>
                    <button type="submit">Save</button>
                    {v.errorsOf === d.slug ? <FieldError id="notFoundUrl" message={errors.notFoundUrl} /> : ''}
                  </form>
                </>
              ) : (
                <p class="hint" safe>{`Not-found URL: ${d.notFoundUrl ?? 'none'}`}</p>
              )}
            </li>
          ))}
        </ul>
      )}
      {owner ? (
        <form method="post" action={path(frame, 'domains')} class="stack">
          <CsrfField token={frame.csrf} />
          <label>
            Add a domain
            <input type="text" name="slug" value={v.values?.slug ?? ''} placeholder="go.example.com" maxlength="190" required {...(v.errorsOf ? {} : invalidAttrs(errors, 'slug'))} />
          </label>
          {v.errorsOf ? '' : <FieldError id="slug" message={errors.slug} />}
          <label class="inline">
            <input type="checkbox" name="makeDefault" /> Use it for new links (the builder's default domain)
          </label>
          <button type="submit">Add domain</button>
        </form>
      ) : (
        <p class="hint">Only owners add and change domains.</p>
      )}
    </SettingsShell>
  );
}

/** Tags or folders: a list with rename and delete, and a create form. */
export function NamedItemsPage(v: {
  frame: WorkspaceFrame;
  kind: 'tags' | 'folders';
  items: (TagResponse | FolderResponse)[];
  /** Refusals: of the create form, or of the rename form of the item `errorsOf`. */
  errors?: FormErrors;
  errorsOf?: string;
  values?: Record<string, string>;
}): JSX.Element {
  const { frame, kind } = v;
  const errors = v.errors ?? {};
  const createErrors = v.errorsOf ? {} : errors;
  const write = can(frame.role!, kind === 'tags' ? 'tags.write' : 'folders.write');
  const noun = kind === 'tags' ? 'tag' : 'folder';
  const title = kind === 'tags' ? 'Tags' : 'Folders';
  return (
    <SettingsShell frame={frame} current={kind} title={title} error={errors.form}>
      {v.items.length === 0 ? <p safe>{`No ${kind} yet.`}</p> : ''}
      <ul class="plain-list">
        {v.items.map((item) => (
          <li data-id={item.id}>
            {write ? (
              <>
                <form method="post" action={path(frame, `${kind}/${encodeURIComponent(item.id)}/rename`)} class="inline">
                  <CsrfField token={frame.csrf} />
                  {'color' in item ? <TagSwatch color={item.color} /> : ''}
                  <label>
                    <span class="visually-hidden" safe>{`Name of the ${noun}`}</span>
                    <input
                      type="text"
                      name="name"
                      value={v.errorsOf === item.id ? (v.values?.name ?? item.name) : item.name}
                      maxlength="190"
                      required
                      {...(v.errorsOf === item.id ? invalidAttrs(errors, 'name') : {})}
                    />
                  </label>
                  {'color' in item ? <ColorSelect name="color" value={item.color} label={`Colour of the tag ${item.name}`} /> : ''}
                  <button type="submit" class="secondary">
                    {'color' in item ? 'Save' : 'Rename'}
                  </button>
                  {v.errorsOf === item.id ? <FieldError id="name" message={errors.name} /> : ''}
                </form>
                <form method="post" action={path(frame, `${kind}/${encodeURIComponent(item.id)}/delete`)} class="inline">
                  <CsrfField token={frame.csrf} />
                  <button
                    type="submit"
                    class="danger"
                    data-confirm={
                      kind === 'tags'
                        ? `Delete the tag “${item.name}”? It is taken off every link that carries it and from filters and analytics by tag; the links themselves stay. This cannot be undone.`
                        : `Delete the folder “${item.name}”? Its links stay but move out of any folder, and the folder's filter is gone. This cannot be undone.`
                    }
                    data-confirm-button={kind === 'tags' ? 'Delete tag' : 'Delete folder'}
                  >
                    Delete
                  </button>
                </form>
              </>
            ) : (
              <>
                {'color' in item ? <TagSwatch color={item.color} /> : ''}
                <span safe>{item.name}</span>
              </>
            )}
          </li>
        ))}
      </ul>
      {write ? (
        <form method="post" action={path(frame, kind)} class="stack">
          <CsrfField token={frame.csrf} />
          <label>
            <span safe>{`New ${noun}`}</span>
            <input type="text" name="name" value={createErrors.name ? (v.values?.name ?? '') : ''} maxlength="190" required {...invalidAttrs(createErrors, 'name')} />
          </label>
          <FieldError id="name" message={createErrors.name} />
          {kind === 'tags' ? <ColorSelect name="color" value={v.values?.color ?? ''} label="Colour" withAny /> : ''}
          <button type="submit" safe>{`Create ${noun}`}</button>
        </form>
      ) : (
        <p class="hint" safe>{`Viewers cannot change ${kind}.`}</p>
      )}
    </SettingsShell>
  );
}

/** A tag's colour as a dot (the published tag object's `color`), named for screen readers. */
export function TagSwatch({ color }: { color: string }): JSX.Element {
  const known = (TAG_COLORS as readonly string[]).includes(color) ? color : 'gray';
  return <span class={`tag-swatch tag-${known}`} role="img" aria-label={`${known} tag`}></span>;
}

function ColorSelect({ name, value, label, withAny = false }: { name: string; value: string; label: string; withAny?: boolean }): JSX.Element {
  return (
    <label>
      <span class={withAny ? undefined : 'visually-hidden'} safe>
        {label}
      </span>
      <select name={name}>
        {withAny ? <option value="">Any (chosen for you)</option> : ''}
        {TAG_COLORS.map((c) => (
          <option value={c} selected={c === value}>
            {c}
          </option>
        ))}
      </select>
    </label>
  );
}

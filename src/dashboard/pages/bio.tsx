/**
 * Settings → Bio pages (routes/bio.tsx): the workspace's link-in-bio pages, the editor (handle,
 * domain, root, title, bio, avatar, theme, social profiles, and each link's place in the list)
 * and a preview of what visitors see. Owners and members edit (`links.write`); viewers read.
 */
import { can } from '../../users/roles.js';
import { MAX_BIO, MAX_HANDLE, MAX_TITLE, NETWORKS, NETWORK_LABELS, THEMES, THEME_LABELS, type BioField, type BioPage } from '../../bio/schema.js';
import { CsrfField, workspacePath } from '../layout.js';
import { PostButton } from '../kit.js';
import { SettingsShell, type WorkspaceFrame } from './settings.js';

export interface BioChoiceLink {
  id: string;
  short_link: string;
  url: string;
  title: string | null;
}

export interface BioEditorView {
  frame: WorkspaceFrame;
  pages: BioPage[];
  editing: BioPage | null;
  domains: string[];
  links: BioChoiceLink[];
  values?: Record<string, string>;
  errors?: Partial<Record<BioField, string>>;
}

/** The public address of a page. */
export function bioUrl(page: Pick<BioPage, 'domain' | 'handle'>, protocol = 'https'): string {
  return `${protocol}://${page.domain}/@${encodeURIComponent(page.handle)}`;
}

function FieldError({ id, message }: { id: string; message?: string }): JSX.Element {
  return message ? (
    <p class="error" id={id} safe>
      {message}
    </p>
  ) : (
    ''
  );
}

export function BioPagesPage(v: BioEditorView): JSX.Element {
  const { frame } = v;
  const write = can(frame.role!, 'links.write');
  const action = workspacePath(frame.workspace.slug, '/settings/bio');
  const e = v.errors ?? {};
  const page = v.editing;
  const val = (name: string, fallback: string | null | undefined) => v.values?.[name] ?? fallback ?? '';
  const position = new Map((page?.linkIds ?? []).map((id, i) => [id, i + 1]));
  const described = (f: BioField) => (e[f] ? `bio-${f}-error` : undefined);
  const formAction = page ? `${action}/${encodeURIComponent(page.id)}` : action;
  const heading = page ? `Edit @${page.handle}` : 'New bio page';
  const chosen = v.links.filter((l) => (v.values ? Number(v.values[`pos_${l.id}`]) > 0 : position.has(l.id)));
  return (
    <SettingsShell frame={frame} current="bio" title="Bio pages" error={Object.keys(e).length ? 'The page was not saved: see the fields below.' : undefined}>
      <p class="hint">A link-in-bio page lists links of this workspace at /@handle on one of its domains. Each tap is a click of that link.</p>
      {v.pages.length === 0 ? (
        <p>No bio pages yet.</p>
      ) : (
        <ul class="bio-pages">
          {v.pages.map((p) => (
            <li data-bio-id={p.id}>
              <a href={`${action}?page=${encodeURIComponent(p.id)}`} safe>
                {`@${p.handle} on ${p.domain}`}
              </a>{' '}
              <span class="hint" safe>
                {`${p.views} views · ${p.linkIds.length} links${p.atRoot ? ' · domain root' : ''}`}
              </span>{' '}
              <a href={bioUrl(p)} rel="noopener">
                Open
              </a>
            </li>
          ))}
        </ul>
      )}
      {page ? (
        <section aria-labelledby="bio-preview-title" class="bio-preview">
          <h3 id="bio-preview-title">Preview</h3>
          <p safe>{`Theme: ${THEME_LABELS[page.theme]}`}</p>
          <p>
            <strong safe>{page.title}</strong>
          </p>
          {page.bio ? <p safe>{page.bio}</p> : ''}
          <ol>
            {v.links
              .filter((l) => position.has(l.id))
              .sort((a, b) => position.get(a.id)! - position.get(b.id)!)
              .map((l) => (
                <li safe>{l.title || l.url}</li>
              ))}
          </ol>
        </section>
      ) : (
        ''
      )}
      {write ? (
        <form method="post" action={formAction} class="stack" novalidate>
          <CsrfField token={frame.csrf} />
          <h3 safe>{heading}</h3>
          <label>
            Handle
            <input type="text" name="handle" value={val('handle', page?.handle)} maxlength={String(MAX_HANDLE)} required aria-invalid={e.handle ? 'true' : undefined} aria-describedby={described('handle')} />
          </label>
          <FieldError id="bio-handle-error" message={e.handle} />
          <label>
            Domain
            <select name="domain" aria-invalid={e.domain ? 'true' : undefined} aria-describedby={described('domain')}>
              {v.domains.map((d) => (
                <option value={d} selected={val('domain', page?.domain) === d} safe>
                  {d}
                </option>
              ))}
            </select>
          </label>
          <FieldError id="bio-domain-error" message={e.domain} />
          <label>
            <input type="checkbox" name="atRoot" checked={v.values ? v.values.atRoot === 'on' : page?.atRoot === true} /> Also show it at the domain's root (instead of the root link)
          </label>
          <label>
            Title
            <input type="text" name="title" value={val('title', page?.title)} maxlength={String(MAX_TITLE)} required aria-invalid={e.title ? 'true' : undefined} aria-describedby={described('title')} />
          </label>
          <FieldError id="bio-title-error" message={e.title} />
          <label>
            Bio
            <textarea name="bio" maxlength={String(MAX_BIO)} rows="3" aria-invalid={e.bio ? 'true' : undefined} aria-describedby={described('bio')} safe>
              {val('bio', page?.bio)}
            </textarea>
          </label>
          <FieldError id="bio-bio-error" message={e.bio} />
          <label>
            Avatar (an https:// image address)
            <input type="url" name="avatar" value={val('avatar', page?.avatar)} aria-invalid={e.avatar ? 'true' : undefined} aria-describedby={described('avatar')} />
          </label>
          <FieldError id="bio-avatar-error" message={e.avatar} />
          <label>
            Theme
            <select name="theme">
              {THEMES.map((th) => (
                <option value={th} selected={val('theme', page?.theme ?? 'light') === th} safe>
                  {THEME_LABELS[th]}
                </option>
              ))}
            </select>
          </label>
          <FieldError id="bio-theme-error" message={e.theme} />
          <fieldset>
            <legend>Social profiles</legend>
            {NETWORKS.map((n) => (
              <div>
                <label>
                  <span safe>{NETWORK_LABELS[n]}</span>
                  <input type="url" name={`social_${n}`} value={val(`social_${n}`, page?.socials[n])} aria-invalid={e[`social_${n}`] ? 'true' : undefined} aria-describedby={described(`social_${n}`)} />
                </label>
                <FieldError id={`bio-social_${n}-error`} message={e[`social_${n}`]} />
              </div>
            ))}
          </fieldset>
          <fieldset aria-describedby={described('links')}>
            <legend>Links (give each one a place: 1 first; leave empty to leave it out)</legend>
            <FieldError id="bio-links-error" message={e.links} />
            {v.links.length === 0 ? <p>This workspace has no links yet.</p> : ''}
            {v.links.map((l) => (
              <label>
                <input type="number" name={`pos_${l.id}`} min="1" max="50" inputmode="numeric" value={val(`pos_${l.id}`, position.has(l.id) ? String(position.get(l.id)) : '')} />{' '}
                <span safe>{l.title ? `${l.title} (${l.short_link})` : l.short_link}</span>
              </label>
            ))}
          </fieldset>
          <p class="hint" safe>
            {`${chosen.length} links chosen.`}
          </p>
          <button type="submit">{page ? 'Save page' : 'Create page'}</button>
        </form>
      ) : (
        <p class="hint">Viewers cannot change bio pages.</p>
      )}
      {write && page ? (
        <PostButton action={`${formAction}/delete`} csrf={frame.csrf} label="Delete page" danger confirm={`Delete the bio page @${page.handle}? Its links stay; the page's address answers 404.`} confirmButton="Delete page" />
      ) : (
        ''
      )}
    </SettingsShell>
  );
}

/** Links: the workspace's links, newest first, searchable, a page at a time by cursor (routes/links.tsx). */
import { CsrfField, Layout, workspacePath, type Frame } from '../layout.js';
import { can } from '../../users/roles.js';
import type { LinkResponse } from '../../links/schema.js';

export interface LinksView {
  frame: Frame & { workspace: { slug: string } };
  links: LinkResponse[];
  search: string;
  showArchived: boolean;
  /** The cursor of the newer page (its first link id), when there is one. */
  newer?: string;
  /** The cursor of the older page (this page's last link id), when there is one. */
  older?: string;
}

function pageHref(v: LinksView, cursor: { before?: string; after?: string }): string {
  const q = new URLSearchParams();
  if (v.search) q.set('search', v.search);
  if (v.showArchived) q.set('showArchived', 'true');
  if (cursor.before) q.set('before', cursor.before);
  if (cursor.after) q.set('after', cursor.after);
  const qs = q.toString();
  return workspacePath(v.frame.workspace.slug, `/links${qs ? `?${qs}` : ''}`);
}

export function LinksPage(v: LinksView): JSX.Element {
  const { frame, links } = v;
  const write = can(frame.role!, 'links.write');
  const action = (id: string) => workspacePath(frame.workspace.slug, `/links/${encodeURIComponent(id)}/archive`);
  return (
    <Layout frame={frame} title="Links" section="links">
      <h1>Links</h1>
      <form method="get" action={workspacePath(frame.workspace.slug, '/links')} class="toolbar" role="search">
        <label>
          Search
          <input type="search" name="search" value={v.search} maxlength="200" placeholder="Key, destination or title" />
        </label>
        <label class="inline">
          <input type="checkbox" name="showArchived" value="true" checked={v.showArchived} /> Show archived
        </label>
        <button type="submit" class="secondary">
          Apply
        </button>
      </form>
      {links.length === 0 ? (
        <p>{v.search ? 'No link matches this search.' : 'No links yet. Create one with the API (POST /links).'}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Short link</th>
                <th scope="col">Destination</th>
                <th scope="col" class="num">
                  Clicks
                </th>
                <th scope="col" class="optional">
                  Created
                </th>
                {write ? <th scope="col">Actions</th> : ''}
              </tr>
            </thead>
            <tbody>
              {links.map((l) => (
                <tr>
                  <td>
                    <span safe>{l.shortLink}</span>
                    {l.archived ? <span class="role"> archived</span> : ''}
                    {l.title ? (
                      <div class="hint" safe>
                        {l.title}
                      </div>
                    ) : (
                      ''
                    )}
                  </td>
                  <td class="url" safe>
                    {l.url}
                  </td>
                  <td class="num">{String(l.clicks)}</td>
                  <td class="optional">{l.createdAt.slice(0, 10)}</td>
                  {write ? (
                    <td>
                      <form method="post" action={action(l.id)} class="inline">
                        <CsrfField token={frame.csrf} />
                        <input type="hidden" name="archived" value={l.archived ? 'false' : 'true'} />
                        <button type="submit" class="secondary">
                          {l.archived ? 'Unarchive' : 'Archive'}
                        </button>
                      </form>
                    </td>
                  ) : (
                    ''
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        {v.newer ? (
          <a href={pageHref(v, { before: v.newer })} rel="prev">
            Newer
          </a>
        ) : (
          ''
        )}
        <span>{links.length === 1 ? '1 link' : `${links.length} links`} on this page</span>
        {v.older ? (
          <a href={pageHref(v, { after: v.older })} rel="next">
            Older
          </a>
        ) : (
          ''
        )}
      </nav>
    </Layout>
  );
}

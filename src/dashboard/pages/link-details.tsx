/**
 * One link, read only (`GET /dashboard/w/:slug/links/:id`, routes/links.tsx): what a viewer may
 * see of it — where it leads, its preview, targeting, UTM values, tags and folder, its totals —
 * with *Copy* for the short link and a way to its analytics. Owners and members get *Edit* too.
 * The link's password is never shown, only whether it has one.
 */
import { escapeHtml, type Children } from '@kitajs/html';
import type { LinkResponse } from '../../links/schema.js';
import { can } from '../../users/roles.js';
import { countryLabel } from '../countries.js';
import { formatCount, formatMoney } from '../format.js';
import { Layout, workspacePath, type Frame } from '../layout.js';
import { linkAnalyticsHref } from './links.js';
import { TagSwatch } from './settings.js';

type WorkspaceFrame = Frame & { workspace: { slug: string } };

const UTM = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
const UTM_LABELS: Record<(typeof UTM)[number], string> = { utm_source: 'Source', utm_medium: 'Medium', utm_campaign: 'Campaign', utm_term: 'Term', utm_content: 'Content' };

function Fact({ term, children }: { term: string; children?: Children }): JSX.Element {
  return (
    <>
      <dt safe>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

export function LinkDetailsPage({ frame, link, folderName }: { frame: WorkspaceFrame; link: LinkResponse; folderName: string | null }): JSX.Element {
  const slug = frame.workspace.slug;
  const write = can(frame.role!, 'links.write');
  const utm = UTM.filter((k) => link[k]);
  const geo = Object.entries(link.geo ?? {});
  return (
    <Layout frame={frame} title={link.shortLink} section="links">
      <p>
        <a href={workspacePath(slug, '/links')}>← Links</a>
      </p>
      <div class="heading">
        <h1 safe>{link.shortLink}</h1>
        <button type="button" class="secondary" data-copy={link.shortLink} hidden>
          Copy short link
        </button>
        <a href={linkAnalyticsHref(slug, link.id)}>Analytics</a>
        {write ? <a href={workspacePath(slug, `/links/${encodeURIComponent(link.id)}/edit`)}>Edit</a> : ''}
      </div>
      {write ? '' : <p class="hint">You can look at this link; owners and members change it.</p>}
      <dl class="link-facts">
        <Fact term="Destination">
          <span class="url" safe>
            {link.url}
          </span>
        </Fact>
        <Fact term="Status">{escapeHtml(link.archived ? 'Archived' : link.disabledAt ? 'Disabled' : 'Active')}</Fact>
        <Fact term="Clicks">{escapeHtml(formatCount(link.clicks))}</Fact>
        <Fact term="Leads">{escapeHtml(formatCount(link.leads))}</Fact>
        <Fact term="Sales">{escapeHtml(`${formatCount(link.sales)} (${formatMoney(link.saleAmount)})`)}</Fact>
        <Fact term="Last click">{link.lastClicked ? <time datetime={link.lastClicked} safe>{`${link.lastClicked.slice(0, 16).replace('T', ' ')} UTC`}</time> : 'never'}</Fact>
        <Fact term="Title">{link.title ? <span safe>{link.title}</span> : '—'}</Fact>
        <Fact term="Description">{link.description ? <span safe>{link.description}</span> : '—'}</Fact>
        <Fact term="Tags">
          {link.tags?.length ? (
            <span class="tags">
              {link.tags.map((t) => (
                <span class="tag">
                  <TagSwatch color={t.color} />
                  <span safe>{t.name}</span>
                </span>
              ))}
            </span>
          ) : (
            '—'
          )}
        </Fact>
        <Fact term="Folder">{folderName ? <span safe>{folderName}</span> : '—'}</Fact>
        <Fact term="UTM">
          {utm.length ? (
            <span safe>{utm.map((k) => `${UTM_LABELS[k]}: ${link[k]}`).join(' · ')}</span>
          ) : (
            '—'
          )}
        </Fact>
        <Fact term="Expires">{link.expiresAt ? <time datetime={link.expiresAt} safe>{`${link.expiresAt.slice(0, 16).replace('T', ' ')} UTC`}</time> : 'never'}</Fact>
        {link.expiredUrl ? (
          <Fact term="After expiry">
            <span class="url" safe>
              {link.expiredUrl}
            </span>
          </Fact>
        ) : (
          ''
        )}
        <Fact term="Password">{link.password ? 'Required to open it' : 'None'}</Fact>
        {link.ios ? (
          <Fact term="iOS">
            <span class="url" safe>
              {link.ios}
            </span>
          </Fact>
        ) : (
          ''
        )}
        {link.android ? (
          <Fact term="Android">
            <span class="url" safe>
              {link.android}
            </span>
          </Fact>
        ) : (
          ''
        )}
        {geo.length ? (
          <Fact term="By country">
            <ul class="plain-list">
              {geo.map(([country, url]) => (
                <li safe>{`${countryLabel(country)}: ${url}`}</li>
              ))}
            </ul>
          </Fact>
        ) : (
          ''
        )}
        <Fact term="Conversion tracking">{link.trackConversion ? 'On' : 'Off'}</Fact>
        <Fact term="Created">
          <time datetime={link.createdAt} safe>
            {link.createdAt.slice(0, 10)}
          </time>
        </Fact>
        {link.comments ? (
          <Fact term="Comments">
            <span safe>{link.comments}</span>
          </Fact>
        ) : (
          ''
        )}
      </dl>
    </Layout>
  );
}

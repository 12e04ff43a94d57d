/** Settings → Audit log (owners): who changed what, newest first, with filters, paging and a CSV download. */
import type { AuditEntry } from '../../audit/entries.js';
import { SettingsShell, type WorkspaceFrame } from './settings.js';
import { workspacePath } from '../layout.js';
import { DataTable } from '../kit.js';

export interface AuditFiltersView {
  actor?: string;
  action?: string;
  target?: string;
  /** `YYYY-MM-DD`, as the date inputs send them. */
  from?: string;
  to?: string;
}

export interface AuditView {
  frame: WorkspaceFrame;
  entries: AuditEntry[];
  filters: AuditFiltersView;
  /** The query of the next (older) page, if any. */
  nextQuery?: string;
  /** The query of the CSV download (the same filters). */
  csvQuery: string;
  /** Names of the workspace's people and keys by id, for the actor column. */
  names: Map<string, string>;
  error?: string;
}

/** Targets shown per entry; a bulk entry's others are counted. */
const SHOWN_TARGETS = 5;

function Actor({ entry, names }: { entry: AuditEntry; names: Map<string, string> }): JSX.Element {
  if (entry.actor.type === 'cli') return <span>Command line</span>;
  const id = entry.actor.id ?? '';
  const label = entry.actor.type === 'api_key' ? 'API key' : 'User';
  return (
    <span>
      {label}: <span safe>{names.get(id) ?? id}</span>
      <br />
      <code safe>{id}</code>
    </span>
  );
}

export function AuditPage({ frame, entries, filters, nextQuery, csvQuery, names, error }: AuditView): JSX.Element {
  const base = workspacePath(frame.workspace.slug, '/settings/audit');
  return (
    <SettingsShell frame={frame} current="audit" title="Audit log" error={error}>
      <form method="get" action={base} class="filters">
        <label>
          Actor id
          <input type="text" name="actor" value={filters.actor ?? ''} maxlength="300" placeholder="user_…, key_… or cli" />
        </label>
        <label>
          Action
          <input type="text" name="action" value={filters.action ?? ''} maxlength="100" placeholder="link.update or link" />
        </label>
        <label>
          Target id
          <input type="text" name="target" value={filters.target ?? ''} maxlength="300" />
        </label>
        <label>
          From
          <input type="date" name="from" value={filters.from ?? ''} />
        </label>
        <label>
          To
          <input type="date" name="to" value={filters.to ?? ''} />
        </label>
        <button type="submit">Filter</button>
        <a href={`${base}.csv${csvQuery}`}>Download CSV</a>
      </form>
      {entries.length === 0 ? (
        <p class="empty">No entries{filters.actor || filters.action || filters.target || filters.from || filters.to ? ' match these filters' : ' yet'}.</p>
      ) : (
        <DataTable label="Audit log entries" columns={['Time (UTC)', 'Actor', 'Action', 'Target', 'Changes', 'Address']}>
          {entries.map((e) => (
            <tr>
              <td safe>{e.timestamp.replace('T', ' ').slice(0, 19)}</td>
              <td>
                <Actor entry={e} names={names} />
              </td>
              <td>
                <code safe>{e.action}</code>
              </td>
              <td>
                {e.target.ids.slice(0, SHOWN_TARGETS).map((id) => (
                  <code safe>{id}</code>
                ))}
                {e.target.count > SHOWN_TARGETS ? <span safe>{` and ${e.target.count - SHOWN_TARGETS} more`}</span> : ''}
              </td>
              <td>
                <code safe>{JSON.stringify(e.changes)}</code>
              </td>
              <td safe>{e.ip ?? ''}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {nextQuery ? (
        <p>
          <a href={`${base}${nextQuery}`}>Older entries</a>
        </p>
      ) : (
        ''
      )}
    </SettingsShell>
  );
}

/**
 * Links → Import: a CSV upload form (with a dry-run box) and, after an upload, the import's
 * report: counts, then each rejected, created or skipped row with its line in the file. Every
 * value from the file is escaped.
 */
import { escapeHtml } from '@kitajs/html';
import type { ImportReport } from '../../imports/service.js';
import type { ImportJob } from '../../imports/jobs.js';
import { CsrfField, FormError, Layout, workspacePath, type Frame } from '../layout.js';
import { DataTable, PostButton } from '../kit.js';

export interface ImportView {
  frame: Frame & { workspace: { slug: string } };
  report?: ImportReport & { layout: string };
  error?: string;
  notice?: string;
  /** The workspace's recent imports, newest first. */
  jobs?: ImportJob[];
}

export function ImportPage({ frame, report, error, notice, jobs }: ImportView): JSX.Element {
  const base = workspacePath(frame.workspace.slug, '/links');
  return (
    <Layout frame={frame} title="Import links" section="links">
      <h1>Import links</h1>
      <p class="hint">
        A CSV file with a header row: exports of Dub, Bitly, Shlink, YOURLS and Kutt are recognised, or columns named url, key, domain, title, tags. Rows whose
        domain and key already exist are skipped, so the same file can be imported again.
      </p>
      <FormError message={error} />
      {notice ? (
        <p role="status" class="notice" safe>
          {notice}
        </p>
      ) : (
        ''
      )}
      <form method="post" action={`${base}/import`} enctype="multipart/form-data" class="stack">
        <CsrfField token={frame.csrf} />
        {/* Before the file: the server reads the fields that precede it, then streams the file. */}
        <label class="inline">
          <input type="checkbox" name="dryRun" value="true" /> Dry run: check the file, change nothing
        </label>
        <label>
          CSV file
          <input type="file" name="file" accept=".csv,text/csv" required />
        </label>
        <button type="submit">Import</button>
      </form>
      {report ? <Report report={report} /> : ''}
      {jobs?.length ? <Jobs jobs={jobs} base={base} csrf={frame.csrf} /> : ''}
      <p>
        <a href={base}>Back to links</a>
      </p>
    </Layout>
  );
}

const STATE_TEXT: Record<ImportJob['state'], string> = {
  running: 'Running',
  completed: 'Completed',
  interrupted: 'Interrupted',
  failed: 'Failed',
  undone: 'Undone',
};

/** The recent imports: state, counts, why one stopped, and Resume / Undo where they apply. */
function Jobs({ jobs, base, csrf }: { jobs: ImportJob[]; base: string; csrf: string }): JSX.Element {
  return (
    <section aria-labelledby="import-jobs" class="import-jobs">
      <h2 id="import-jobs">Recent imports</h2>
      <DataTable label="Import jobs" columns={['Started', 'State', 'Rows read', 'Created', 'Skipped', 'Rejected', 'Details', 'Actions']}>
        {jobs.map((j) => (
          <tr data-import={j.id} data-state={j.state}>
            <td safe>{j.createdAt.replace('T', ' ').slice(0, 19)}</td>
            <td safe>{STATE_TEXT[j.state]}</td>
            <td class="num">{j.counts.rows}</td>
            <td class="num">{j.counts.created}</td>
            <td class="num">{j.counts.skipped}</td>
            <td class="num">{j.counts.rejected}</td>
            <td safe>{j.state === 'undone' ? `${j.undone} links deleted` : (j.error ?? '')}</td>
            <td>
              {j.resumable ? <PostButton action={`${base}/imports/${encodeURIComponent(j.id)}/resume`} csrf={csrf} label="Resume" /> : ''}
              {j.undoable ? <PostButton action={`${base}/imports/${encodeURIComponent(j.id)}/undo`} csrf={csrf} label="Undo" danger confirm="Delete the links this import created?" /> : ''}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function Report({ report }: { report: ImportReport & { layout: string } }): JSX.Element {
  const c = report.counts;
  return (
    <section aria-labelledby="import-report" class="import-report">
      <h2 id="import-report">{report.dryRun ? 'Dry run: nothing was written' : 'Import done'}</h2>
      <p role="status" class="notice" safe>
        {`${c.rows} rows: ${c.created} ${report.dryRun ? 'would be created' : 'created'}, ${c.skipped} skipped, ${c.rejected} rejected.`}
      </p>
      {report.tagsCreated.length ? <p safe>{`Tags created: ${report.tagsCreated.join(', ')}`}</p> : ''}
      {report.domainsCreated.length ? <p safe>{`Domains added (unverified): ${report.domainsCreated.join(', ')}`}</p> : ''}
      {report.items.length ? (
        <DataTable label="Rows of this import" columns={['Line', 'Outcome', 'Link or reason']}>
          {report.items.map((i) => (
            <tr data-line={String(i.line)} data-status={i.status}>
              <td class="num">{i.line}</td>
              <td>{escapeHtml(i.status)}</td>
              <td safe>{i.status === 'rejected' ? i.error : `${i.domain}/${i.key}`}</td>
            </tr>
          ))}
        </DataTable>
      ) : (
        ''
      )}
      {report.truncated ? <p class="hint">Only the first rows are listed.</p> : ''}
    </section>
  );
}

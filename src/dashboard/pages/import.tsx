/**
 * Links → Import: a CSV upload form (with a dry-run box) and, after an upload, the import's
 * report: counts, then each rejected, created or skipped row with its line in the file. Every
 * value from the file is escaped.
 */
import { escapeHtml } from '@kitajs/html';
import type { ImportReport } from '../../imports/service.js';
import { CsrfField, FormError, Layout, workspacePath, type Frame } from '../layout.js';

export interface ImportView {
  frame: Frame & { workspace: { slug: string } };
  report?: ImportReport & { layout: string };
  error?: string;
}

export function ImportPage({ frame, report, error }: ImportView): JSX.Element {
  const base = workspacePath(frame.workspace.slug, '/links');
  return (
    <Layout frame={frame} title="Import links" section="links">
      <h1>Import links</h1>
      <p class="hint">
        A CSV file with a header row: exports of Dub, Bitly, Shlink, YOURLS and Kutt are recognised, or columns named url, key, domain, title, tags. Rows whose
        domain and key already exist are skipped, so the same file can be imported again.
      </p>
      <FormError message={error} />
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
      <p>
        <a href={base}>Back to links</a>
      </p>
    </Layout>
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
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Outcome</th>
                <th scope="col">Link or reason</th>
              </tr>
            </thead>
            <tbody>
              {report.items.map((i) => (
                <tr data-line={String(i.line)} data-status={i.status}>
                  <td class="num">{i.line}</td>
                  <td>{escapeHtml(i.status)}</td>
                  <td safe>{i.status === 'rejected' ? i.error : `${i.domain}/${i.key}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        ''
      )}
      {report.truncated ? <p class="hint">Only the first rows are listed.</p> : ''}
    </section>
  );
}

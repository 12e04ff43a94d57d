/**
 * `POST /links/import`: a CSV file of links, as the body (`text/csv`) or as the `file` field of a
 * `multipart/form-data` upload. The body is received into a temporary file as it arrives and read
 * back at the import's pace (spool.ts), never held in memory; the file is capped in bytes and
 * rows (limits.ts). A real import is a recorded job (job-runner.ts): the file is kept until the
 * job ends, and once it has arrived whole the import no longer stops if the client goes away.
 */
import { whoOf } from '../audit/record.js';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../http/errors.js';
import type { CsvImporter } from './service.js';
import type { JobRunner } from './job-runner.js';
import { ImportQuery, ImportReport } from './schema.js';
import { parseMappingPairs } from './layouts.js';
import { boundaryOf, multipartField } from './multipart.js';
import { DEFAULT_IMPORT_MAX_BYTES, DEFAULT_IMPORT_MAX_ROWS, assertDeclaredSize, sizeLabel } from './limits.js';
import { spoolBody } from './spool.js';
import { clientGone } from '../http/client-gone.js';

export const importRoutes: FastifyPluginAsyncZod<{ imports: CsvImporter; runner: JobRunner }> = async (app, { imports, runner }) => {
  // Both types are handed over as the raw stream: the import reads it at its own pace.
  app.addContentTypeParser(['text/csv', 'multipart/form-data'], (_req, payload, done) => done(null, payload));

  app.post(
    '/links/import',
    {
      config: { permission: 'links.write' },
      schema: {
        tags: ['Links'],
        operationId: 'importLinks',
        summary: 'Import links from a CSV file',
        description:
          'The body is the CSV file (`Content-Type: text/csv`), or a `multipart/form-data` upload with the file in the field `file`. ' +
          "The header row is recognised for the exports of Dub, Bitly, Shlink, YOURLS and Kutt, and for generic headers (url, key, domain, title, tags, created); `map` overrides it. Each row is checked like `POST /links`; rows whose domain and key the workspace already has are skipped, so the same file can be imported again. Tags and domains that accepted rows name are created (domains unverified), after every row of the batch is judged; a dry run answers the same without writing. " +
          `One import reads at most ${limitsText()} (settings IMPORT_MAX_ROWS, IMPORT_MAX_BYTES): a larger file is refused with 413 (bytes) or 422 (rows). ` +
          'A real import is a recorded job: its id is the `importId` of the answer and the header `Waymark-Import-Id` of every answer, and `GET /imports/{importId}` tells its state and counts. ' +
          'Once the file has arrived whole, the import runs to the end even if the client goes away; if the client goes away during the upload, or the server stops, the import is interrupted: resume it (`POST /imports/{importId}/resume`) or undo it (`POST /imports/{importId}/undo`).',
        querystring: ImportQuery,
        response: { 200: ImportReport },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const mapping = parseMappingPairs(q.map === undefined ? [] : Array.isArray(q.map) ? q.map : [q.map]);
      const limits = imports.requestLimits;
      assertDeclaredSize(req.headers['content-length'], limits.maxBytes);
      if (q.dryRun) {
        return imports.importCsv(req.auth.workspace, csvBodyOf(req, limits.maxBytes), { dryRun: true, mapping, userId: req.auth.keyId, maxRows: limits.maxRows, signal: clientGone(reply) }, whoOf(req));
      }
      const body = checkedBody(req);
      return runner.start(
        req.auth.workspace,
        { source: 'api', contentType: req.headers['content-type'] ?? 'text/csv', mapping, createdBy: req.auth.keyId },
        (job, uploaded) => csvOf(req, spoolBody(body, { maxBytes: limits.maxBytes, keepAt: job.spoolPath!, onComplete: uploaded })),
        { userId: req.auth.keyId, maxRows: limits.maxRows, clientGone: clientGone(reply), onJob: (job) => void reply.header('waymark-import-id', job.id) },
        whoOf(req),
      );
    },
  );
};

/** The default caps, for the description (the settings may change them). */
const limitsText = () => `${DEFAULT_IMPORT_MAX_ROWS.toLocaleString('en')} rows and ${sizeLabel(DEFAULT_IMPORT_MAX_BYTES)} by default`;

function checkedBody(req: FastifyRequest): Readable {
  const body = req.body as AsyncIterable<Buffer> | undefined;
  if (!body || typeof (body as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] !== 'function') {
    throw new ApiError('bad_request', 'Send the CSV file as the body (Content-Type: text/csv) or as the field "file" of a multipart/form-data upload.');
  }
  if (/^multipart\/form-data/i.test(req.headers['content-type'] ?? '') && !boundaryOf(req.headers['content-type'])) {
    throw new ApiError('bad_request', 'Malformed multipart body: the Content-Type has no boundary.');
  }
  return body as Readable;
}

function csvBodyOf(req: FastifyRequest, maxBytes: number): AsyncIterable<Buffer> {
  return csvOf(req, spoolBody(checkedBody(req), { maxBytes }));
}

/** The CSV file of a spooled body: the body itself, or its `file` field. */
function csvOf(req: FastifyRequest, spooled: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) return spooled;
  const boundary = boundaryOf(type);
  if (!boundary) throw new ApiError('bad_request', 'Malformed multipart body: the Content-Type has no boundary.');
  return multipartField(spooled, boundary, 'file');
}

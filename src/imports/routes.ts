/**
 * `POST /links/import`: a CSV file of links, as the body (`text/csv`) or as the `file` field of a
 * `multipart/form-data` upload. The body is streamed into the import, never held whole.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import type { ImportService } from './service.js';
import { ImportQuery, ImportReport } from './schema.js';
import { parseMappingPairs } from './layouts.js';
import { boundaryOf, multipartField } from './multipart.js';
import { capBytes } from './limits.js';

export const importRoutes: FastifyPluginAsyncZod<{ imports: ImportService }> = async (app, { imports }) => {
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
          "The header row is recognised for the exports of Dub, Bitly, Shlink, YOURLS and Kutt, and for generic headers (url, key, domain, title, tags, created); `map` overrides it. Each row is checked like `POST /links`; rows whose domain and key the workspace already has are skipped, so the same file can be imported again. Tags the rows name are created, unknown domains are added unverified.",
        querystring: ImportQuery,
        response: { 200: ImportReport },
      },
    },
    async (req) => {
      const q = req.query;
      const mapping = parseMappingPairs(q.map === undefined ? [] : Array.isArray(q.map) ? q.map : [q.map]);
      return imports.importCsv(req.auth.workspace, csvBodyOf(req), { dryRun: q.dryRun, mapping, userId: req.auth.keyId });
    },
  );
};

function csvBodyOf(req: FastifyRequest): AsyncIterable<Buffer> {
  const type = req.headers['content-type'] ?? '';
  const body = req.body as AsyncIterable<Buffer> | undefined;
  if (!body || typeof (body as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] !== 'function') {
    throw new ApiError('bad_request', 'Send the CSV file as the body (Content-Type: text/csv) or as the field "file" of a multipart/form-data upload.');
  }
  const capped = capBytes(body);
  if (!/^multipart\/form-data/i.test(type)) return capped;
  const boundary = boundaryOf(type);
  if (!boundary) throw new ApiError('bad_request', 'Malformed multipart body: the Content-Type has no boundary.');
  return multipartField(capped, boundary, 'file');
}

/**
 * Import jobs over the API: `GET /imports` (the workspace's 50 latest), `GET /imports/{id}`,
 * `POST /imports/{id}/resume` (an interrupted import, from its kept file: answers the import's
 * report, counts included from the start) and `POST /imports/{id}/undo` (deletes the links it
 * created; answers the job). Reading needs `links.read`, resuming and undoing `links.write`.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { whoOf } from '../audit/record.js';
import { ApiError } from '../http/errors.js';
import { IMPORT_ID, publicJob } from './jobs.js';
import type { JobRunner } from './job-runner.js';
import { ImportJob, ImportJobParams, ImportReport } from './schema.js';
import { z } from 'zod';

export const importJobRoutes: FastifyPluginAsyncZod<{ runner: JobRunner }> = async (app, { runner }) => {
  const tags = ['Links'];
  app.get('/imports', { config: { permission: 'links.read' }, schema: { tags, operationId: 'listImports', summary: 'List recent imports', response: { 200: z.array(ImportJob) } } }, async (req) =>
    (await runner.jobs.list(req.auth.workspace.id)).map(publicJob),
  );

  app.get(
    '/imports/:importId',
    { config: { permission: 'links.read' }, schema: { tags, operationId: 'getImport', summary: 'Retrieve an import: its state and counts', params: ImportJobParams, response: { 200: ImportJob } } },
    async (req) => {
      const job = await runner.jobs.get(req.auth.workspace.id, req.params.importId);
      if (!job) throw new ApiError('not_found', 'Import not found.');
      return publicJob(job);
    },
  );

  app.post(
    '/imports/:importId/resume',
    { config: { permission: 'links.write' }, schema: { tags, operationId: 'resumeImport', summary: 'Resume an interrupted import', params: ImportJobParams, response: { 200: ImportReport } } },
    async (req, reply) => {
      // Only an id of the form jobs are given goes back as a header (a path may hold anything).
      if (IMPORT_ID.test(req.params.importId)) reply.header('waymark-import-id', req.params.importId);
      const { maxRows } = runner.importer.requestLimits;
      return runner.resume(req.auth.workspace, req.params.importId, { userId: req.auth.keyId, maxRows }, whoOf(req));
    },
  );

  app.post(
    '/imports/:importId/undo',
    { config: { permission: 'links.write' }, schema: { tags, operationId: 'undoImport', summary: 'Undo an import: delete the links it created', params: ImportJobParams, response: { 200: ImportJob } } },
    async (req) => publicJob(await runner.undo(req.auth.workspace, req.params.importId, whoOf(req))),
  );
};

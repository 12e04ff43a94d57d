/**
 * `POST /folders`, `GET /folders`, `GET /folders/{id}`, `PATCH /folders/{id}`, `DELETE /folders/{id}`.
 */
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FolderService } from './service.js';
import { CreateFolderBody, DeleteFolderResponse, FolderParams, FolderResponse, ListFoldersQuery, UpdateFolderBody } from './schema.js';
import { whoOf } from '../audit/record.js';

const tags = ['Folders'];
const read = { permission: 'folders.read' } as const;
const write = { permission: 'folders.write' } as const;

export const folderRoutes: FastifyPluginAsyncZod<{ folders: FolderService }> = async (app, { folders }) => {
  app.post(
    '/folders',
    { config: write, schema: { tags, operationId: 'createFolder', summary: 'Create a folder', body: CreateFolderBody, response: { 201: FolderResponse } } },
    async (req, reply) => reply.status(201).send(await folders.create(req.auth.workspace, req.body, whoOf(req))),
  );

  app.get(
    '/folders',
    {
      config: read,
      schema: { tags, operationId: 'listFolders', summary: 'Retrieve a list of folders', querystring: ListFoldersQuery, response: { 200: z.array(FolderResponse) } },
    },
    (req) => folders.list(req.auth.workspaceId, req.query),
  );

  // Exists on the published service but is not in its document; hidden here the same way.
  app.get(
    '/folders/:id',
    { config: read, schema: { tags, operationId: 'getFolder', hide: true, params: FolderParams, response: { 200: FolderResponse } } },
    (req) => folders.get(req.auth.workspaceId, req.params.id),
  );

  app.patch(
    '/folders/:id',
    {
      config: write,
      schema: { tags, operationId: 'updateFolder', summary: 'Update a folder', params: FolderParams, body: UpdateFolderBody, response: { 200: FolderResponse } },
    },
    (req) => folders.update(req.auth.workspaceId, req.params.id, req.body ?? {}, whoOf(req)),
  );

  app.delete(
    '/folders/:id',
    { config: write, schema: { tags, operationId: 'deleteFolder', summary: 'Delete a folder', params: FolderParams, response: { 200: DeleteFolderResponse } } },
    (req) => folders.delete(req.auth.workspaceId, req.params.id, whoOf(req)),
  );
};

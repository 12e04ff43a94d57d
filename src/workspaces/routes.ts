/**
 * `GET /workspaces/{idOrSlug}` and `PATCH /workspaces/{idOrSlug}`.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { WorkspaceService } from './service.js';
import { UpdateWorkspaceBody, WorkspaceParams, WorkspaceResponse } from './schema.js';
import { whoOf } from '../audit/record.js';

export const workspaceRoutes: FastifyPluginAsyncZod<{ workspaces: WorkspaceService }> = async (app, { workspaces }) => {
  app.get(
    '/workspaces/:idOrSlug',
    {
      config: { permission: 'workspaces.read' },
      schema: { tags: ['Workspaces'], operationId: 'getWorkspace', summary: 'Retrieve a workspace', params: WorkspaceParams, response: { 200: WorkspaceResponse } },
    },
    (req) => workspaces.getForCaller(req.auth, req.params.idOrSlug),
  );

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: '/workspaces/:idOrSlug',
      config: { permission: 'workspaces.write' },
      schema: {
        tags: ['Workspaces'],
        operationId: method === 'PATCH' ? 'updateWorkspace' : 'replaceWorkspace',
        summary: 'Update a workspace',
        hide: method === 'PUT',
        params: WorkspaceParams,
        body: UpdateWorkspaceBody,
        response: { 200: WorkspaceResponse },
      },
      handler: (req) => workspaces.update(req.auth, req.params.idOrSlug, { ...req.body }, whoOf(req)),
    });
  }
};

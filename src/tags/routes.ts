/**
 * `POST /tags`, `GET /tags`, `PATCH /tags/{id}` (and `PUT`), `DELETE /tags/{id}`.
 */
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TagService } from './service.js';
import { CreateTagBody, DeleteTagResponse, ListTagsQuery, TagParams, TagResponse, UpdateTagBody } from './schema.js';

export const tagRoutes: FastifyPluginAsyncZod<{ tags: TagService }> = async (app, { tags }) => {
  app.post(
    '/tags',
    {
      config: { permission: 'tags.write' },
      schema: { tags: ['Tags'], operationId: 'createTag', summary: 'Create a tag', body: CreateTagBody, response: { 201: TagResponse } },
    },
    async (req, reply) => reply.status(201).send(await tags.create(req.auth.workspace, req.body)),
  );

  app.get(
    '/tags',
    {
      config: { permission: 'tags.read' },
      schema: { tags: ['Tags'], operationId: 'getTags', summary: 'Retrieve a list of tags', querystring: ListTagsQuery, response: { 200: z.array(TagResponse) } },
    },
    (req) => tags.list(req.auth.workspaceId, req.query),
  );

  // PUT is the published alias of PATCH; it stays out of the document as it is there.
  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: '/tags/:id',
      config: { permission: 'tags.write' },
      schema: {
        tags: ['Tags'],
        operationId: method === 'PATCH' ? 'updateTag' : 'replaceTag',
        summary: 'Update a tag',
        hide: method === 'PUT',
        params: TagParams,
        body: UpdateTagBody,
        response: { 200: TagResponse },
      },
      handler: (req) => tags.update(req.auth.workspaceId, req.params.id, req.body ?? {}),
    });
  }

  app.delete(
    '/tags/:id',
    {
      config: { permission: 'tags.write' },
      schema: { tags: ['Tags'], operationId: 'deleteTag', summary: 'Delete a tag', params: TagParams, response: { 200: DeleteTagResponse } },
    },
    (req) => tags.delete(req.auth.workspaceId, req.params.id),
  );
};

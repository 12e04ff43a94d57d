/**
 * `POST /tags`, `GET /tags`, `PATCH /tags/{id}` (and `PUT`), `DELETE /tags/{id}`.
 */
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { TagService } from './service.js';
import { CreateTagBody, DeleteTagResponse, ListTagsQuery, TagParams, TagResponse, UpdateTagBody } from './schema.js';
import { whoOf } from '../audit/record.js';

const tags = ['Tags'];
const read = { permission: 'tags.read' } as const;
const write = { permission: 'tags.write' } as const;

export const tagRoutes: FastifyPluginAsyncZod<{ tags: TagService }> = async (app, { tags: service }) => {
  app.post(
    '/tags',
    { config: write, schema: { tags, operationId: 'createTag', summary: 'Create a tag', body: CreateTagBody, response: { 201: TagResponse } } },
    async (req, reply) => reply.status(201).send(await service.create(req.auth.workspace, req.body, whoOf(req))),
  );

  app.get(
    '/tags',
    { config: read, schema: { tags, operationId: 'getTags', summary: 'Retrieve a list of tags', querystring: ListTagsQuery, response: { 200: z.array(TagResponse) } } },
    (req) => service.list(req.auth.workspaceId, req.query),
  );

  // PUT is the published alias of PATCH; it stays out of the document as it is there.
  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: '/tags/:id',
      config: write,
      schema: {
        tags,
        operationId: method === 'PATCH' ? 'updateTag' : 'replaceTag',
        summary: 'Update a tag',
        hide: method === 'PUT',
        params: TagParams,
        body: UpdateTagBody,
        response: { 200: TagResponse },
      },
      handler: (req) => service.update(req.auth.workspaceId, req.params.id, req.body ?? {}, whoOf(req)),
    });
  }

  app.delete(
    '/tags/:id',
    { config: write, schema: { tags, operationId: 'deleteTag', summary: 'Delete a tag', params: TagParams, response: { 200: DeleteTagResponse } } },
    (req) => service.delete(req.auth.workspaceId, req.params.id, whoOf(req)),
  );
};

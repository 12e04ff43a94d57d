/**
 * `POST /tags`, `GET /tags`, `PATCH /tags/{id}` (and `PUT`), `DELETE /tags/{id}`.
 */
import type { TagService } from './service.js';
import { CreateTagBody, DeleteTagResponse, ListTagsQuery, TagParams, TagResponse, UpdateTagBody } from './schema.js';
import { resourceRoutes } from '../http/resource-routes.js';

export const tagRoutes = resourceRoutes({
  resource: 'tags',
  tag: 'Tags',
  path: '/tags',
  param: 'id',
  schemas: { create: CreateTagBody, listQuery: ListTagsQuery, params: TagParams, update: UpdateTagBody, item: TagResponse, deleted: DeleteTagResponse },
  operations: {
    create: ['createTag', 'Create a tag'],
    list: ['getTags', 'Retrieve a list of tags'],
    update: ['updateTag', 'Update a tag'],
    replaceId: 'replaceTag',
    delete: ['deleteTag', 'Delete a tag'],
  },
  // The service's methods are the routes' handlers as they are.
  handlers: (tags: TagService) => tags,
});

/**
 * The /links routes: thin handlers that take the validated request, call the link service and
 * return its answer. Static paths (`/links/count`, `/links/info`, `/links/bulk`, `/links/upsert`)
 * take precedence over `/links/:linkId` in Fastify's router.
 */
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Caller, LinkService } from './service.js';
import { whoOf } from '../audit/record.js';
import {
  BulkCreateBody,
  BulkDeleteQuery,
  BulkUpdateBody,
  CountLinksQuery,
  CreateLinkBody,
  LinkErrorResponse,
  LinkIdParams,
  LinkInfoQuery,
  LinkResponse,
  ListLinksQuery,
  UpdateLinkBody,
} from './schema.js';

const tags = ['Links'];
const read = { permission: 'links.read' } as const;
const write = { permission: 'links.write' } as const;

/** The authenticated workspace; the API key that writes is recorded as the link's `userId`. */
export function callerOf(req: FastifyRequest): Caller {
  return { workspaceId: req.auth.workspaceId, workspace: req.auth.workspace, userId: req.auth.keyId, who: whoOf(req) };
}

export const linkRoutes: FastifyPluginAsyncZod<{ links: LinkService }> = async (app, { links }) => {
  app.post(
    '/links',
    { config: write, schema: { tags, operationId: 'createLink', summary: 'Create a link', body: CreateLinkBody, response: { 200: LinkResponse } } },
    (req) => links.create(callerOf(req), req.body),
  );

  app.get(
    '/links',
    {
      config: read,
      schema: { tags, operationId: 'getLinks', summary: 'Retrieve a list of links', querystring: ListLinksQuery, response: { 200: z.array(LinkResponse) } },
    },
    (req) => links.list(callerOf(req), req.query),
  );

  app.get(
    '/links/count',
    {
      config: read,
      schema: {
        tags,
        operationId: 'getLinksCount',
        summary: 'Retrieve links count',
        querystring: CountLinksQuery,
        response: { 200: z.union([z.number(), z.array(z.record(z.string(), z.unknown()))]) },
      },
    },
    (req) => links.count(callerOf(req), req.query),
  );

  app.get(
    '/links/info',
    { config: read, schema: { tags, operationId: 'getLinkInfo', summary: 'Retrieve a link', querystring: LinkInfoQuery, response: { 200: LinkResponse } } },
    (req) => links.info(callerOf(req), req.query),
  );

  app.put(
    '/links/upsert',
    { config: write, schema: { tags, operationId: 'upsertLink', summary: 'Upsert a link', body: CreateLinkBody, response: { 200: LinkResponse } } },
    (req) => links.upsert(callerOf(req), req.body),
  );

  app.post(
    '/links/bulk',
    {
      config: write,
      schema: {
        tags,
        operationId: 'bulkCreateLinks',
        summary: 'Bulk create links',
        body: BulkCreateBody,
        response: { 200: z.array(z.union([LinkResponse, LinkErrorResponse])) },
      },
    },
    (req) => links.bulkCreate(callerOf(req), req.body),
  );

  app.patch(
    '/links/bulk',
    {
      config: write,
      schema: {
        tags,
        operationId: 'bulkUpdateLinks',
        summary: 'Bulk update links',
        body: BulkUpdateBody,
        response: { 200: z.array(z.union([LinkResponse, LinkErrorResponse])) },
      },
    },
    (req) => links.bulkUpdate(callerOf(req), req.body),
  );

  app.delete(
    '/links/bulk',
    {
      config: write,
      schema: {
        tags,
        operationId: 'bulkDeleteLinks',
        summary: 'Bulk delete links',
        querystring: BulkDeleteQuery,
        response: { 200: z.object({ deletedCount: z.number() }) },
      },
    },
    (req) => links.bulkDelete(callerOf(req), req.query.linkIds),
  );

  app.get(
    '/links/:linkId',
    { config: read, schema: { tags, operationId: 'getLink', summary: 'Retrieve a link by id', params: LinkIdParams, response: { 200: LinkResponse } } },
    (req) => links.get(callerOf(req), req.params.linkId),
  );

  for (const method of ['PATCH', 'PUT'] as const) {
    app.route({
      method,
      url: '/links/:linkId',
      config: write,
      schema: {
        tags,
        operationId: method === 'PATCH' ? 'updateLink' : 'replaceLink',
        summary: 'Update a link',
        hide: method === 'PUT',
        params: LinkIdParams,
        body: UpdateLinkBody,
        response: { 200: LinkResponse },
      },
      handler: (req) => links.update(callerOf(req), req.params.linkId, req.body),
    });
  }

  app.delete(
    '/links/:linkId',
    {
      config: write,
      schema: { tags, operationId: 'deleteLink', summary: 'Delete a link', params: LinkIdParams, response: { 200: z.object({ id: z.string() }) } },
    },
    (req) => links.delete(callerOf(req), req.params.linkId),
  );
};

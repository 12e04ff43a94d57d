/**
 * `POST /domains`, `GET /domains`, `GET /domains/{slug}`, `PATCH /domains/{slug}`, `DELETE /domains/{slug}`.
 */
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DomainService } from './service.js';
import { CreateDomainBody, DeleteDomainResponse, DomainParams, DomainResponse, ListDomainsQuery, UpdateDomainBody } from './schema.js';
import { whoOf } from '../audit/record.js';

const tags = ['Domains'];
const read = { permission: 'domains.read' } as const;
const write = { permission: 'domains.write' } as const;

export const domainRoutes: FastifyPluginAsyncZod<{ domains: DomainService }> = async (app, { domains }) => {
  app.post(
    '/domains',
    { config: write, schema: { tags, operationId: 'createDomain', summary: 'Create a domain', body: CreateDomainBody, response: { 201: DomainResponse } } },
    async (req, reply) => reply.status(201).send(await domains.create(req.auth.workspace, req.body, {}, whoOf(req))),
  );

  app.get(
    '/domains',
    {
      config: read,
      schema: { tags, operationId: 'listDomains', summary: 'Retrieve a list of domains', querystring: ListDomainsQuery, response: { 200: z.array(DomainResponse) } },
    },
    (req) => domains.list(req.auth.workspaceId, req.query),
  );

  // Exists on the published service but is not in its document; hidden here the same way.
  app.get(
    '/domains/:slug',
    { config: read, schema: { tags, operationId: 'getDomain', hide: true, params: DomainParams, response: { 200: DomainResponse } } },
    (req) => domains.get(req.auth.workspaceId, req.params.slug),
  );

  app.patch(
    '/domains/:slug',
    {
      config: write,
      schema: { tags, operationId: 'updateDomain', summary: 'Update a domain', params: DomainParams, body: UpdateDomainBody, response: { 200: DomainResponse } },
    },
    (req) => domains.update(req.auth.workspaceId, req.params.slug, req.body ?? {}, whoOf(req)),
  );

  app.delete(
    '/domains/:slug',
    {
      config: write,
      schema: { tags, operationId: 'deleteDomain', summary: 'Delete a domain and its links', params: DomainParams, response: { 200: DeleteDomainResponse } },
    },
    (req) => domains.delete(req.auth.workspaceId, req.params.slug, whoOf(req)),
  );
};

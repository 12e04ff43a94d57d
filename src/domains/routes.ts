/**
 * `POST /domains`, `GET /domains`, `GET /domains/{slug}`, `PATCH /domains/{slug}`, `DELETE /domains/{slug}`.
 */
import type { DomainService } from './service.js';
import { CreateDomainBody, DeleteDomainResponse, DomainParams, DomainResponse, ListDomainsQuery, UpdateDomainBody } from './schema.js';
import { resourceRoutes } from '../http/resource-routes.js';

export const domainRoutes = resourceRoutes({
  resource: 'domains',
  tag: 'Domains',
  path: '/domains',
  param: 'slug',
  schemas: { create: CreateDomainBody, listQuery: ListDomainsQuery, params: DomainParams, update: UpdateDomainBody, item: DomainResponse, deleted: DeleteDomainResponse },
  operations: {
    create: ['createDomain', 'Create a domain'],
    list: ['listDomains', 'Retrieve a list of domains'],
    getId: 'getDomain',
    update: ['updateDomain', 'Update a domain'],
    delete: ['deleteDomain', 'Delete a domain and its links'],
  },
  handlers: (domains: DomainService) => ({
    create: (workspace, body, who) => domains.create(workspace, body, {}, who),
    list: (workspaceId, query) => domains.list(workspaceId, query),
    get: (workspaceId, slug) => domains.get(workspaceId, slug),
    update: (workspaceId, slug, body, who) => domains.update(workspaceId, slug, body, who),
    delete: (workspaceId, slug, who) => domains.delete(workspaceId, slug, who),
  }),
});

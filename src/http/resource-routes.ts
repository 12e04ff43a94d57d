/**
 * The routes of a workspace's named resource (domains, folders, tags): create, list, an optional
 * hidden get, update (with PUT as a hidden alias where the published API has one) and delete,
 * each behind the resource's read or write permission and recorded with who asked. A resource's
 * routes file keeps only what differs: paths, operation ids, summaries, schemas and its service.
 *
 * @example
 * export const tagRoutes = resourceRoutes<TagService>({
 *   resource: 'tags', tag: 'Tags', path: '/tags', param: 'id', schemas, operations,
 *   handlers: (s) => ({ create: s.create, list: s.list, update: s.update, delete: s.delete }),
 * });
 */
import { z, type ZodTypeAny } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Who } from '../audit/record.js';
import { whoOf } from '../audit/record.js';
import type { AuthContext } from '../workspaces/service.js';
import type { Resource } from '../workspaces/api-keys.js';

export interface ResourceSchemas<C extends ZodTypeAny, Q extends ZodTypeAny, P extends ZodTypeAny, U extends ZodTypeAny> {
  create: C;
  listQuery: Q;
  params: P;
  update: U;
  /** One item, as every route but the delete answers it. */
  item: ZodTypeAny;
  deleted: ZodTypeAny;
}

/** Operation ids and summaries, as the published document names them (`getId`: a route it has but does not document). */
export interface ResourceOperations {
  create: [id: string, summary: string];
  list: [id: string, summary: string];
  getId?: string;
  update: [id: string, summary: string];
  /** PUT's operation id, where PUT is an alias of PATCH. */
  replaceId?: string;
  delete: [id: string, summary: string];
}

export interface ResourceHandlers<C, Q, U> {
  create(workspace: AuthContext['workspace'], body: C, who: Who): Promise<unknown>;
  list(workspaceId: string, query: Q): Promise<unknown[]>;
  get?(workspaceId: string, key: string): Promise<unknown>;
  update(workspaceId: string, key: string, body: U, who: Who): Promise<unknown>;
  delete(workspaceId: string, key: string, who: Who): Promise<unknown>;
}

export function resourceRoutes<Service, C extends ZodTypeAny = ZodTypeAny, Q extends ZodTypeAny = ZodTypeAny, P extends ZodTypeAny = ZodTypeAny, U extends ZodTypeAny = ZodTypeAny>(definition: {
  resource: Resource;
  /** The document's tag. */
  tag: string;
  path: string;
  /** The path parameter naming one item. */
  param: 'id' | 'slug';
  schemas: ResourceSchemas<C, Q, P, U>;
  operations: ResourceOperations;
  handlers(service: Service): ResourceHandlers<z.infer<C>, z.infer<Q>, z.infer<U>>;
}): FastifyPluginAsyncZod<{ service: Service }> {
  const { schemas, operations: op, path, param } = definition;
  const tags = [definition.tag];
  const read = { permission: `${definition.resource}.read` } as const;
  const write = { permission: `${definition.resource}.write` } as const;
  const itemPath = `${path}/:${param}`;
  const keyOf = (params: unknown) => (params as Record<string, string>)[param]!;

  return async (app, { service }) => {
    const h = definition.handlers(service);
    app.post(
      path,
      { config: write, schema: { tags, operationId: op.create[0], summary: op.create[1], body: schemas.create, response: { 201: schemas.item } } },
      async (req, reply) => reply.status(201).send(await h.create(req.auth.workspace, req.body as z.infer<C>, whoOf(req))),
    );

    app.get(
      path,
      { config: read, schema: { tags, operationId: op.list[0], summary: op.list[1], querystring: schemas.listQuery, response: { 200: z.array(schemas.item) } } },
      (req) => h.list(req.auth.workspaceId, req.query as z.infer<Q>),
    );

    // Exists on the published service but is not in its document; hidden here the same way.
    if (op.getId && h.get) {
      const get = h.get;
      app.get(
        itemPath,
        { config: read, schema: { tags, operationId: op.getId, hide: true, params: schemas.params, response: { 200: schemas.item } } },
        (req) => get(req.auth.workspaceId, keyOf(req.params)),
      );
    }

    // PUT, where it is the published alias of PATCH, stays out of the document as it is there.
    for (const method of op.replaceId ? (['PATCH', 'PUT'] as const) : (['PATCH'] as const)) {
      app.route({
        method,
        url: itemPath,
        config: write,
        schema: {
          tags,
          operationId: method === 'PATCH' ? op.update[0] : op.replaceId,
          summary: op.update[1],
          ...(method === 'PUT' ? { hide: true } : {}),
          params: schemas.params,
          body: schemas.update,
          response: { 200: schemas.item },
        },
        handler: (req) => h.update(req.auth.workspaceId, keyOf(req.params), (req.body ?? {}) as z.infer<U>, whoOf(req)),
      });
    }

    app.delete(
      itemPath,
      { config: write, schema: { tags, operationId: op.delete[0], summary: op.delete[1], params: schemas.params, response: { 200: schemas.deleted } } },
      (req) => h.delete(req.auth.workspaceId, keyOf(req.params), whoOf(req)),
    );
  };
}

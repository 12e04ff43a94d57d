/**
 * `GET /customers`, `GET /customers/{id}`, `PATCH /customers/{id}`, `DELETE /customers/{id}`.
 * The published API opens customers to business plans and up and asks for no key scope
 * (behaviour.md §2.5), so any valid key of such a workspace may call them.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CustomerService } from './service.js';
import {
  CustomerExpandQuery,
  CustomerParams,
  CustomerResponse,
  DeleteCustomerQuery,
  DeleteCustomerResponse,
  ListCustomersQuery,
  UpdateCustomerBody,
} from './schema.js';
import { whoOf } from '../audit/record.js';

const config = { minPlan: 'business' } as const;
const tags = ['Customers'];

export const customerRoutes: FastifyPluginAsyncZod<{ customers: CustomerService }> = async (app, { customers }) => {
  app.get(
    '/customers',
    {
      config,
      schema: {
        tags,
        operationId: 'getCustomers',
        summary: 'List customers',
        querystring: ListCustomersQuery,
        response: { 200: z.array(CustomerResponse) },
      },
    },
    (req) => customers.list(req.auth.workspaceId, req.query),
  );

  app.get(
    '/customers/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'getCustomer',
        summary: 'Retrieve a customer',
        params: CustomerParams,
        querystring: CustomerExpandQuery,
        response: { 200: CustomerResponse },
      },
    },
    (req) => customers.get(req.auth.workspaceId, req.params.id, req.query.includeExpandedFields === true),
  );

  app.patch(
    '/customers/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'updateCustomer',
        summary: 'Update a customer',
        params: CustomerParams,
        querystring: CustomerExpandQuery,
        body: UpdateCustomerBody,
        response: { 200: CustomerResponse },
      },
    },
    (req) => customers.update(req.auth.workspaceId, req.params.id, req.body ?? {}, req.query.includeExpandedFields === true, whoOf(req)),
  );

  app.delete(
    '/customers/:id',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteCustomer',
        summary: 'Delete a customer',
        params: CustomerParams,
        querystring: DeleteCustomerQuery,
        response: { 200: DeleteCustomerResponse },
      },
    },
    (req) => customers.delete(req.auth.workspaceId, req.params.id, { deleteEvents: req.query.deleteEvents === true }, whoOf(req)),
  );
};

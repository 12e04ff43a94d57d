/** Journeys: `GET /customers/{id}/journey`, from the customers service and the event store. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import type { CustomersModule } from '../customers/module.js';
import { createJourneyService } from './service.js';
import { journeyRoutes } from './routes.js';

export function createJourneysModule(ctx: AppContext, deps: { customers: CustomersModule }) {
  const service = createJourneyService({ customers: deps.customers.service, events: ctx.events, now: ctx.now });
  const routes: FastifyPluginAsync = async (app) => {
    await app.register(journeyRoutes, { journeys: service });
  };
  return { routes, service };
}
export type JourneysModule = ReturnType<typeof createJourneysModule>;

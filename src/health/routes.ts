/**
 * `GET /health`: the process runs and answers (liveness: 200 from the moment it listens, during
 * the start too, whatever the database does; an orchestrator restarts a process that stops
 * answering). `GET /ready`: send it traffic (readiness.ts: 200 once started and while the database
 * answers; 503 while it starts, stops, or the database does not answer within 2 s).
 * Before the app exists, main.ts's starting server (starting-server.ts) answers both the same way.
 */
import type { FastifyPluginAsync } from 'fastify';
import { readyAnswer, sharedProbe, type Readiness } from './readiness.js';
import { VERSION } from '../version.js';

/** How long /ready waits for the database before it answers 503. */
export const READY_PING_TIMEOUT_MS = 2_000;

/** The liveness answer, with the release that answers (package.json's version). */
export const HEALTH_BODY = { status: 'ok', version: VERSION } as const;

export const healthRoutes: FastifyPluginAsync<{ readiness: Readiness; ping: () => Promise<void> }> = async (app, { readiness, ping }) => {
  const databaseAnswers = sharedProbe(ping, READY_PING_TIMEOUT_MS);
  // Probes come every few seconds from every load balancer and orchestrator: their request lines
  // are logged at debug (request-log.ts), not at info.
  const hidden = { config: { public: true, probe: true }, schema: { hide: true } };
  app.get('/health', hidden, async () => HEALTH_BODY);
  app.get('/ready', hidden, async (_req, reply) => {
    const state = readiness.state;
    const answer = readyAnswer(state, state.kind === 'serving' ? await databaseAnswers() : undefined);
    return reply.status(answer.status).header('cache-control', 'no-store').send(answer.body);
  });
};

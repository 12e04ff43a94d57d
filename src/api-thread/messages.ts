/**
 * What the front (main thread) and the API thread say over the worker's port (front.ts,
 * api-side.ts). The API thread asks the redirect side for what only it has (a click still in the
 * ring, the redirect's counters) and is told when to drain; link changes travel on a port of their
 * own (`ThreadChange`), the event log on a third (the log thread's second client).
 */
import type { MessagePort } from 'node:worker_threads';
import type { Change } from '../db/change-bus.js';
import type { Config } from '../config.js';
import type { RedirectModule } from '../redirect/module.js';

/**
 * A link or domain change (the ChangeBus's), a bio page saved (the bio pages' cache), or the
 * bus's resync (the front's relay reconnected: the API thread's caches start over too).
 */
export type ThreadChange = Change | { type: 'bio' } | { type: 'resync' };

export type RedirectStats = ReturnType<RedirectModule['stats']>;

/** The API thread's start. */
export interface ApiThreadData {
  config: Config;
  /** The front's database (the log thread's way: its URL and schema, not DATABASE_URL). */
  databaseUrl: string;
  pgSchema?: string;
  /** The Unix socket the API's server listens on. */
  socketPath: string;
  /** Its CPU priority (`API_THREAD_NICE`). */
  nice: number;
  /** The event log's second client port. */
  logPort: MessagePort;
  /** Link changes to the front. */
  changePort: MessagePort;
  /** Fastify's logger setting. */
  logger: boolean | object;
  stats: RedirectStats;
  /** Print-worthy: a one-time dashboard setup address while no user exists (main.ts's banner). */
  issueSetupToken: boolean;
}

/** Front → API thread. */
export type ToApi =
  | { type: 'reply'; id: number; value?: unknown; error?: string }
  | { type: 'stats'; stats: RedirectStats }
  /** SIGTERM: unready, stop, finish what is in flight, close; answered by `closed`. */
  | { type: 'close' };

/** API thread → front. */
export type FromApi =
  | { type: 'call'; id: number; method: 'findClick' | 'flushClicks'; args: unknown[] }
  | { type: 'ready'; workspace: { id: string; name: string; slug: string }; createdKey?: string; setupToken?: string }
  | { type: 'failed'; message: string }
  | { type: 'closed' };

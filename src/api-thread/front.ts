/**
 * `API_THREAD=1`: the main thread as a thin front. It keeps the listening socket and the redirect
 * (the link cache, the click ring, the lag bound, the event log's thread) and proxies every other
 * request (proxy.ts) to the API thread (worker.ts), which runs the whole app on a connection of
 * its own. So the API's CPU (queries, serialisation, GC) no longer delays redirects in one event
 * loop: the kernel schedules the two threads, the API's at `API_THREAD_NICE`.
 *
 * - Link changes made on the API thread reach the redirect's caches over a port of their own,
 *   applied before the API's answer is passed on: a redirect after a PATCH sees the change.
 * - The API thread reads and writes events as the log thread's second client (events/log/).
 * - The API thread gone: its requests answer 503 with the error body; redirects go on. A crashed
 *   thread is started again after a growing pause (createRestartPolicy), on new ports.
 * - `close()`: stop accepting, the API thread finishes what is in flight and closes, then the
 *   redirect's last clicks are stored and the event log closes (main.ts, SIGTERM).
 *
 * @example
 * const front = await startFront({ config, database, starting });
 * // main.ts: front.redirect.beginShutdown(deadline); await front.close();
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { HEALTH_BODY } from '../health/routes.js';
import type { Config } from '../config.js';
import type { AppContext } from '../context.js';
import type { OpenDatabase } from '../db/open.js';
import { createChangeBus } from '../db/change-bus.js';
import { eventStoreKind, startEventLog } from '../events/index.js';
import { createRedirectModule, type RedirectModule } from '../redirect/module.js';
import { createBioModule } from '../bio/module.js';
import { clientAddressRule } from '../http/client-address.js';
import { clientErrorHandler } from '../http/errors.js';
import type { StartingServer } from '../health/starting-server.js';
import { DATABASE_PACKAGES, startModuleWorker } from '../worker-thread.js';
import { createApiProxy } from './proxy.js';
import type { ApiThreadData, FromApi, ThreadChange, ToApi } from './messages.js';
import { createLineLogger, toStderr } from '../log-line.js';
import { getHeapStatistics } from 'node:v8';
import { collectIfExposed, heapFigures, type HeapFigures } from '../heap-figures.js';
import type { LogMemory } from '../events/index.js';

/** The front's answer to `memory()`: the heap of each thread, the log thread's DuckDB. */
export interface ThreadsMemory {
  main: HeapFigures;
  api?: HeapFigures;
  log: LogMemory;
}

/** The API socket's folder: `waymark-api-<pid>-<random>`, private to this user (mkdtemp: 0700). */
const SOCKET_DIR_PREFIX = 'waymark-api-';

/** Folders left by processes that ended without closing (kill -9): removed at the next start. */
function removeStaleSocketDirs(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice(SOCKET_DIR_PREFIX.length).split('-')[0]);
    if (!name.startsWith(SOCKET_DIR_PREFIX) || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (err) {
      // ESRCH: no such process; EPERM: another user's, left alone.
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

/** How often the API thread is sent the redirect's counters (its /metrics reads them). */
const STATS_INTERVAL_MS = 1_000;

export interface FrontOptions {
  config: Config;
  database: OpenDatabase;
  /** A server already listening (main.ts), adopted; otherwise `server` is new and not listening. */
  starting?: StartingServer;
  /** The API thread's Fastify logger (tests: false). */
  logger?: boolean | object;
  /** Have the API thread issue a dashboard setup address while no user exists (main.ts's banner). */
  issueSetupToken?: boolean;
  /** The pauses before a crashed API thread is started again (createRestartPolicy's defaults). */
  restart?: RestartPolicyOptions;
}

export interface Front {
  server: Server;
  redirect: RedirectModule;
  /** What the API thread reported at start: the default workspace, a created key, a setup address. */
  boot: Extract<FromApi, { type: 'ready' }>;
  /** False while the API thread is down (crashed, restarting) or once it has stopped. */
  apiRunning(): boolean;
  /** Resolves once an API thread serves again after a crash (tests), or the front closes. */
  apiStarted(): Promise<void>;
  /** The API thread now serving (a restart replaces it), for tests that stop it. */
  readonly worker: Worker;
  /**
   * Each thread's heap (the API thread's while it runs) and the log thread's DuckDB
   * (bench/redirect-flood.ts); `collect`: the front's and the log thread's after a full collection,
   * where `--expose-gc` allows one.
   */
  memory(collect?: boolean): Promise<ThreadsMemory>;
  close(): Promise<void>;
}

export async function startFront(options: FrontOptions): Promise<Front> {
  const { config, database } = options;
  const logLine = createLineLogger(config.logLevel, toStderr);
  const bus = createChangeBus();
  const kind = eventStoreKind(config, database);
  // The listeners' settings come from the API thread (its outbox knows who subscribes).
  const eventLog = startEventLog({
    config,
    database,
    kind,
    listeners: { module: new URL('../click-listeners/index.js', import.meta.url), settings: () => undefined, watch: () => undefined },
    onCounted: () => undefined,
    onLog: logLine,
  });
  const clientAddress = clientAddressRule(config.trustProxy);
  // What the redirect and the bio pages read of the app's context; the rest is the API thread's.
  const ctx = { config, database, clientAddress, bus, events: eventLog.events, now: Date.now } as Pick<AppContext, 'config' | 'database' | 'clientAddress' | 'bus' | 'events' | 'now'> as AppContext;
  const bio = createBioModule(ctx);
  const redirect = createRedirectModule(ctx, { links: undefined as never, bio: bio.pages });
  await eventLog.opened;
  await redirect.lifecycle.start?.();

  let fromApi = false;
  const apply = (change: ThreadChange) => {
    if (change.type === 'bio') return bio.pages.invalidate();
    if (change.type === 'resync') return;
    // Published: this thread's caches drop it, and on PostgreSQL the other processes hear it.
    fromApi = true;
    try {
      bus.publish(change);
    } finally {
      fromApi = false;
    }
  };
  removeStaleSocketDirs();
  const socketDir = mkdtempSync(join(tmpdir(), `${SOCKET_DIR_PREFIX}${process.pid}-`));
  const socketPath = join(socketDir, 'api.sock');

  /** One API thread: its worker and its own link-change port (a restart makes both anew). */
  interface ApiThread {
    worker: Worker;
    changes: MessagePort;
    started: number;
    /** Settles with its `ready`, rejects when it fails or exits first. */
    boot: Promise<Extract<FromApi, { type: 'ready' }>>;
  }
  let current: ApiThread;
  /** True while the current thread serves (ready, not exited). */
  let running = false;
  let closing = false;
  let closed: () => void = () => undefined;
  const closedOrGone = new Promise<void>((resolve) => (closed = resolve));
  const restart = createRestartPolicy(options.restart);
  let restartTimer: NodeJS.Timeout | undefined;

  const drainChanges = () => {
    const port = current.changes;
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) apply(m.message as ThreadChange);
  };
  // What other processes changed (the change relay delivers it here) reaches the API thread's
  // listeners too (the TLS module's allowed domains).
  bus.subscribe((change) => {
    if (!fromApi && running) current.changes.postMessage(change satisfies ThreadChange);
  });
  bus.onResync(() => {
    if (running) current.changes.postMessage({ type: 'resync' } satisfies ThreadChange);
  });

  const spawn = (): ApiThread => {
    // The log thread serves the new thread on a port of its own and forgets the dead one's.
    const logChannel = new MessageChannel();
    eventLog.events.attachClient(logChannel.port2);
    const changes = new MessageChannel();
    changes.port1.on('message', apply);
    changes.port1.unref();
    // A thread that crashed left its socket file: the new one listens on the same path.
    rmSync(socketPath, { force: true });
    const data: ApiThreadData = {
      config,
      databaseUrl: database.url,
      pgSchema: database.pgSchema,
      socketPath,
      nice: config.apiThreadNice,
      logPort: logChannel.port1,
      changePort: changes.port2,
      logger: options.logger ?? { level: config.logLevel },
      stats: redirect.stats(),
      issueSetupToken: options.issueSetupToken ?? false,
    };
    const worker = startModuleWorker(new URL('./worker.js', import.meta.url), {
      workerData: data,
      transferList: [logChannel.port1, changes.port2],
      preload: [...DATABASE_PACKAGES, 'fastify', 'zod'],
      // The thread's name in /proc/<pid>/task/*/comm (bench/redirect/threads.ts).
      name: 'api-thread',
    });
    const thread: ApiThread = { worker, changes: changes.port1, started: Date.now(), boot: undefined as never };
    let lastError: string | undefined;
    thread.boot = new Promise((resolve, reject) => {
      worker.on('message', (m: FromApi) => {
        if (m.type === 'ready') {
          if (current === thread && !closing) running = true;
          resolve(m);
        } else if (m.type === 'failed') {
          lastError = m.message;
          reject(new Error(`the API thread did not start: ${m.message}`));
          // Its exit restarts it (or, at the first start, startFront fails).
          void worker.terminate();
        } else if (m.type === 'closed') closed();
        else if (m.type === 'call') void answer(thread, m);
      });
      worker.on('error', (err) => {
        lastError = err.message;
        logLine('error', 'the API thread failed; API requests answer 503 until it is restarted', { err: err.message });
        reject(err);
      });
      worker.on('exit', (code) => {
        reject(new Error(`the API thread stopped (exit code ${code})`));
        if (current !== thread) return;
        running = false;
        drainChanges();
        changes.port1.close();
        if (closing) return closed();
        const ranMs = Date.now() - thread.started;
        const delayMs = restart.next(ranMs);
        logLine('error', 'the API thread stopped; restarting it', { exitCode: code, err: lastError, ranMs, restartInMs: delayMs });
        restartTimer = setTimeout(() => {
          restartTimer = undefined;
          if (closing) return closed();
          current = spawn();
          current.boot.then(
            () => logLine('info', 'the API thread was restarted', { afterMs: Date.now() - thread.started - ranMs }),
            () => undefined,
          );
        }, delayMs);
      });
    });
    // A restarted thread's failure is reported by its exit; the first one's by startFront.
    thread.boot.catch(() => undefined);
    return thread;
  };

  current = spawn();
  const boot = await current.boot.catch(async (err) => {
    closing = true;
    clearTimeout(restartTimer);
    await current.worker.terminate();
    await redirect.lifecycle.close?.();
    await eventLog.close();
    rmSync(socketDir, { recursive: true, force: true });
    throw err;
  });
  const answer = async (thread: ApiThread, m: Extract<FromApi, { type: 'call' }>) => {
    const reply = (r: Omit<Extract<ToApi, { type: 'reply' }>, 'type' | 'id'>) => current === thread && running && thread.worker.postMessage({ type: 'reply', id: m.id, ...r } satisfies ToApi);
    try {
      const value = m.method === 'findClick' ? await redirect.clicks.findClick(m.args[0] as string, m.args[1] as string) : await redirect.flushClicks();
      reply({ value });
    } catch (err) {
      reply({ error: err instanceof Error ? err.message : String(err) });
    }
  };
  const statsTimer = setInterval(() => running && current.worker.postMessage({ type: 'stats', stats: redirect.stats() } satisfies ToApi), STATS_INTERVAL_MS);
  statsTimer.unref();

  const proxy = createApiProxy({ socketPath, docsUrl: config.docsUrl, trust: clientAddress.fastifyTrust, onAnswer: drainChanges });
  const route = (req: IncomingMessage, res: ServerResponse) => {
    if (redirect.tryHandle(req, res)) return;
    if (running) return proxy.forward(req, res);
    // The API thread is down or restarting: answered at once, not held (see 0014).
    // Liveness holds (the process and its redirects serve); readiness does not.
    if (req.url === '/health') return sendJson(res, 200, { ...HEALTH_BODY, api: 'restarting' });
    if (req.url === '/ready') return sendJson(res, 503, { status: 'unavailable', reason: 'The API is restarting.' });
    proxy.refuse(res);
  };
  let server: Server;
  if (options.starting) server = options.starting.adopt(route);
  else {
    server = createServer(route);
    server.on('clientError', clientErrorHandler(config.docsUrl));
  }

  return {
    server,
    redirect,
    boot,
    get worker() {
      return current.worker;
    },
    apiRunning: () => running,
    async memory(collect) {
      if (collect) collectIfExposed();
      const api = running ? heapFigures(await current.worker.getHeapStatistics()) : undefined;
      return { main: heapFigures(getHeapStatistics()), ...(api ? { api } : {}), log: await eventLog.events.memory(collect) };
    },
    apiStarted: async () => {
      while (!running && !closing) await new Promise((r) => setTimeout(r, 20));
    },
    async close() {
      clearInterval(statsTimer);
      const serverClosed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      closing = true;
      if (restartTimer) {
        // Between a crash and its restart: no thread to stop.
        clearTimeout(restartTimer);
        restartTimer = undefined;
        closed();
      } else if (running) current.worker.postMessage({ type: 'close' } satisfies ToApi);
      // A thread still starting has nothing in flight.
      else void current.worker.terminate();
      await closedOrGone;
      // The API's last answers are passed on; connections left idle close.
      while (proxy.inFlight > 0) await new Promise((r) => setTimeout(r, 10));
      server.closeIdleConnections();
      await Promise.race([serverClosed, new Promise((r) => setTimeout(r, 1_000).unref())]);
      server.closeAllConnections();
      await serverClosed;
      proxy.close();
      drainChanges();
      await redirect.lifecycle.close?.();
      await bio.lifecycle.close();
      await eventLog.close();
      current.changes.close();
      await current.worker.terminate();
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

/**
 * When to restart a crashed API thread: 100 ms after the first crash, doubling to 5 s while it
 * keeps crashing soon after its start; a thread that ran a minute starts the count over.
 *
 * @example
 * const policy = createRestartPolicy();
 * policy.next(200); // 100, then 200, 400 … 5000
 */
export interface RestartPolicyOptions {
  /** The first pause (100 ms). */
  firstMs?: number;
  /** The longest (5 s). */
  maxMs?: number;
  /** A thread that ran this long before it crashed starts the count over (60 s). */
  healthyAfterMs?: number;
}

export function createRestartPolicy(options: RestartPolicyOptions = {}): { next(ranMs: number): number } {
  const { firstMs = 100, maxMs = 5_000, healthyAfterMs = 60_000 } = options;
  let attempts = 0;
  return {
    next(ranMs) {
      if (ranMs >= healthyAfterMs) attempts = 0;
      return Math.min(maxMs, firstMs * 2 ** attempts++);
    },
  };
}

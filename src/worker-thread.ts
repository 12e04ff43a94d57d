/**
 * Starts a worker thread from one of this project's modules: the built `.js` directly; under tsx
 * (tests, `npm run dev`) the `.ts` source through a bootstrap that registers tsx inside the
 * worker, because Node 20 does not pass the main thread's module hooks on to workers.
 *
 * Under tsx every module the worker loads after the hooks are registered crosses to the hooks'
 * thread and back to be resolved and loaded: kysely's 279 files took 1.1-1.9 s that way against
 * 0.36 s without. `preload` names packages (plain JavaScript) the worker imports before tsx is
 * registered, so they load at Node's own speed and the project's `.ts` files find them cached.
 *
 * @example
 * const worker = startModuleWorker(new URL('./render-worker.js', import.meta.url), { workerData: { nice: 10 }, preload: ['kysely'] });
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startModuleWorker(moduleUrl: URL, options: WorkerOptions & { preload?: readonly string[] } = {}): Worker {
  const { preload = [], ...workerOptions } = options;
  // This file is .ts exactly when the project runs from source.
  if (!import.meta.url.endsWith('.ts')) return new Worker(moduleUrl, workerOptions);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = moduleUrl.href.replace(/\.js$/, '.ts');
  // Resolved here, from the project: the bootstrap is evaluated without a module of its own.
  const packages = JSON.stringify(preload.map((p) => import.meta.resolve(p)));
  const bootstrap = `Promise.all(${packages}.map((p) => import(p))).then(() => import(${JSON.stringify(tsx)})).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { ...workerOptions, eval: true });
}

/** What a worker that opens the metadata database loads first (`preload`). */
export const DATABASE_PACKAGES = ['kysely', 'pg', 'better-sqlite3'] as const;

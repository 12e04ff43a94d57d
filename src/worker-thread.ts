/**
 * Starts a worker thread from one of this project's modules: the built `.js` directly; under tsx
 * (tests, `npm run dev`) the `.ts` source through a bootstrap that registers tsx inside the
 * worker, because Node 20 does not pass the main thread's module hooks on to workers.
 *
 * @example
 * const worker = startModuleWorker(new URL('./render-worker.js', import.meta.url), { workerData: { nice: 10 } });
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startModuleWorker(moduleUrl: URL, options: WorkerOptions = {}): Worker {
  // This file is .ts exactly when the project runs from source.
  if (!import.meta.url.endsWith('.ts')) return new Worker(moduleUrl, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = moduleUrl.href.replace(/\.js$/, '.ts');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(bootstrap, { ...options, eval: true });
}

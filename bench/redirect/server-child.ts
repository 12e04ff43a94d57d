/**
 * The benchmarks' side of a server process in bench/redirect/ (waymark-server.ts, bare-server.ts):
 * start it and wait for its port, and ask it a question over IPC.
 *
 * @example
 * const { child, port } = await startServerChild('waymark-server.ts', { DATABASE_URL: url });
 * const stats = await ask<Stats>(child, 'stats', 'stats');
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Forks `script` (a file of bench/redirect/) under tsx and resolves once it reports its port.
 * `root`: another checkout (with its node_modules) whose script to run, for a side-by-side
 * comparison with an older tree.
 */
export function startServerChild(script: string, env: Record<string, string>, nodeArgs: string[] = [], root?: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(root ? join(root, 'bench/redirect', script) : join(here, script), [], {
    ...(root ? { cwd: root } : {}),
    execArgv: ['--import', 'tsx', ...nodeArgs],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => (m.type === 'ready' ? resolve({ child, port: m.port }) : reject(new Error('bad message'))));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** Sends `type` and resolves with the `stats` of the next `reply` message (replies come in order per type). */
export function ask<T>(child: ChildProcess, type: string, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string; stats: T }) => {
      if (m.type !== reply) return;
      child.off('message', on);
      resolve(m.stats);
    };
    child.on('message', on);
    child.send({ type });
  });
}

/**
 * Nice values of this process's threads, from field 19 of `/proc/self/task/<tid>/stat` (Linux):
 * for tests that check a worker thread lowered its own priority.
 *
 * @example
 * for (let i = 0; i < 100 && !threadNices().includes(8); i++) await sleep(20);
 * assert.equal(threadNices().filter((n) => n === 8).length, 1);
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** True where threads have nice values of their own to read (Linux). */
export const HAS_THREAD_PRIORITIES = existsSync('/proc/thread-self');

export function threadNices(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // The fields after the command name, which is in parentheses and may hold spaces.
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

/**
 * How many exports of one workspace stream at the same time in this process. An export holds a
 * page of records and its buffers for as long as its client takes to read it; past the limit the
 * next one is refused with the spec's 429 `rate_limit_exceeded`, so one workspace with slow
 * readers cannot fill the memory every workspace shares.
 *
 * @example
 * const gate = createExportGate(3);
 * const release = gate.enter(workspaceId); // throws 429 past 3
 * body.once('close', release);
 */
import { ApiError } from '../http/errors.js';

/** Seconds a refused client is asked to wait: exports of a few seconds are the common case. */
const RETRY_AFTER_SECONDS = 10;

export function createExportGate(perWorkspace: number) {
  const running = new Map<string, number>();
  return {
    /** Counts one more running export of the workspace and returns its release (idempotent). */
    enter(workspaceId: string): () => void {
      const n = running.get(workspaceId) ?? 0;
      if (n >= perWorkspace) {
        throw new ApiError('rate_limit_exceeded', `Too many exports at once: the limit is ${perWorkspace} running exports per workspace. Retry when one has finished.`, {
          headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
        });
      }
      running.set(workspaceId, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (running.get(workspaceId) ?? 1) - 1;
        if (left > 0) running.set(workspaceId, left);
        else running.delete(workspaceId);
      };
    },
    /** Exports of the workspace streaming now. */
    running: (workspaceId: string) => running.get(workspaceId) ?? 0,
  };
}

export type ExportGate = ReturnType<typeof createExportGate>;

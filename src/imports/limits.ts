/**
 * The caps of one import sent over HTTP (`POST /links/import`, the dashboard's upload): the bytes
 * of the file (`IMPORT_MAX_BYTES`, a 413 naming the cap, before reading anything when the request
 * declares its length) and its rows (`IMPORT_MAX_ROWS`, `ImportOptions.maxRows`). The import
 * streams, so they bound how long one request keeps the process busy, not memory. The CLI has none.
 *
 * @example
 * assertDeclaredSize(req.headers['content-length'], limits.maxBytes);
 * const body = spoolBody(req.raw, { maxBytes: limits.maxBytes }); // spool.ts
 */
import { ApiError } from '../http/errors.js';
import type { CsvImporter } from './service.js';

/** Imports over HTTP one workspace may run at once; more are answered 429. */
export const IMPORTS_PER_WORKSPACE = 2;

/** The defaults of IMPORT_MAX_ROWS and IMPORT_MAX_BYTES, set in config.ts (the settings import nothing of the imports). */
export { DEFAULT_IMPORT_MAX_BYTES, DEFAULT_IMPORT_MAX_ROWS } from '../config.js';

/** `64 MiB`, `512 KiB`, `1000 bytes`. */
export function sizeLabel(bytes: number): string {
  for (const [unit, size] of [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]] as const) if (bytes >= size) return `${+(bytes / size).toFixed(1)} ${unit}`;
  return `${bytes} bytes`;
}

/** The 413 of a file over the cap (`started`: rows may have been written before). */
export function tooLarge(max: number, started: boolean): ApiError {
  return new ApiError(
    'payload_too_large',
    `The file is larger than ${sizeLabel(max)}, the most one import takes: split it and import the parts` +
      (started ? ' (rows written before this answer stay; importing them again skips them).' : '.'),
  );
}

/** Refuses a request whose declared length is over the cap, before anything is read or written. */
export function assertDeclaredSize(contentLength: string | undefined, max: number): void {
  if (contentLength !== undefined && Number(contentLength) > max) throw tooLarge(max, false);
}

/**
 * At most `max` imports of one workspace at a time (the import thread serves every workspace in
 * turn, one slice per import: a workspace running ten would take ten turns for another's one).
 * One more is refused with 429 before its body is read.
 */
export function perWorkspace(importer: CsvImporter, max = IMPORTS_PER_WORKSPACE): CsvImporter {
  const running = new Map<string, number>();
  return {
    requestLimits: importer.requestLimits,
    async importCsv(ws, csv, options) {
      const now = running.get(ws.id) ?? 0;
      if (now >= max) {
        throw new ApiError('rate_limit_exceeded', `${max} imports of this workspace are running: try again when one has finished.`, { headers: { 'retry-after': '10' } });
      }
      running.set(ws.id, now + 1);
      try {
        return await importer.importCsv(ws, csv, options);
      } finally {
        const left = running.get(ws.id)! - 1;
        if (left > 0) running.set(ws.id, left);
        else running.delete(ws.id);
      }
    },
  };
}

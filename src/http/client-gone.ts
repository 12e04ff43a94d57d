/**
 * An `AbortSignal` that fires when the client of a request goes away before its answer is sent
 * (the connection closed, the upload was cancelled), so long work done on its behalf (an import)
 * stops instead of running on for no one. The response's `close` comes when the connection ends or
 * the answer is sent; only in the first case is the answer unfinished.
 *
 * @example
 * const report = await imports.importCsv(ws, body, { dryRun, signal: clientGone(reply) });
 */
import type { FastifyReply } from 'fastify';

export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

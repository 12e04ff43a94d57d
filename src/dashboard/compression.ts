/**
 * The dashboard's HTML answers compressed (brotli or gzip, as the request's Accept-Encoding
 * allows): an `onSend` hook of the dashboard's scope, so the API, the redirect path and the static
 * assets (already stored gzipped, assets.ts) never pass through it. Only whole pages are
 * compressed (a string or a buffer of `text/html` of at least `MIN_BYTES`): a streamed body (the
 * CSV and NDJSON exports) is left alone, as compressing it here would hold it in memory. The work
 * runs on libuv's thread pool (zlib's asynchronous calls), not on the event loop.
 *
 * @example
 * installHtmlCompression(scope); // a 57 KB links page goes out as ~6 KB of brotli
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';

/** Smaller answers are sent as they are: the headers would cost more than the saving. */
export const MIN_BYTES = 1024;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type Encoding = 'br' | 'gzip';

/**
 * The encoding to use for an `Accept-Encoding` header: brotli, else gzip, each only with a
 * q-value above 0 (`*` stands for both); none when neither is acceptable.
 */
export function chooseEncoding(acceptEncoding: string | string[] | undefined): Encoding | undefined {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding ?? '';
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (name: Encoding) => q.get(name) ?? q.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return undefined;
}

/** `body` compressed with `encoding` (brotli at quality 5: most of its gain, a fraction of 11's time). */
export async function compress(body: string | Buffer, encoding: Encoding): Promise<Buffer> {
  const input = typeof body === 'string' ? Buffer.from(body) : body;
  if (encoding === 'br') {
    return brotliAsync(input, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: input.length },
    });
  }
  return gzipAsync(input, { level: 6 });
}

export function installHtmlCompression(scope: FastifyInstance): void {
  scope.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (!String(reply.getHeader('content-type') ?? '').startsWith('text/html') || reply.getHeader('content-encoding')) return payload;
    if (Buffer.byteLength(payload) < MIN_BYTES) return payload;
    const vary = String(reply.getHeader('vary') ?? '');
    if (!/\baccept-encoding\b/i.test(vary)) reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const encoding = chooseEncoding(request.headers['accept-encoding']);
    if (!encoding) return payload;
    const body = await compress(payload, encoding);
    reply.header('content-encoding', encoding);
    reply.removeHeader('content-length');
    return body;
  });
}

/**
 * The source side of a migration: a service that answers the published API (Dub's hosted
 * service, another Waymark) or Bitly's (bitly-source.ts), read with the global `fetch`. Every
 * request has a timeout; a 429 waits for `Retry-After` or `X-RateLimit-Reset` (else a backoff up
 * to a minute) and tries again for as long as `maxRateLimitWaitMs` allows; a 5xx or a network
 * failure is tried again a few times, then the run stops, and a re-run continues where the target
 * already holds the data.
 *
 * @example
 * const source = createSource({ baseUrl: 'https://api.dub.co', token: 'dub_…' });
 * for await (const page of source.pages('/tags', {}, { sizeParam: 'pageSize', size: 100 })) …
 */

export interface SourceOptions {
  baseUrl: string;
  token: string;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  /** Tries of one request answered 5xx, or failing in transit (default 8). */
  maxAttempts?: number;
  /** Longest time one request waits out 429 answers (default 60 minutes: hourly limits reset within it). */
  maxRateLimitWaitMs?: number;
  /** Longest wait honoured from one `Retry-After` (default 120 s). */
  maxRetryAfterMs?: number;
  /** Largest answer read (default 64 MiB: a page of 1,000 events with their links is a few MiB). */
  maxBodyBytes?: number;
  /** Replaceable in tests (fault injection); defaults to the global `fetch`. */
  fetch?: typeof fetch;
  /** Replaceable in tests, so a `Retry-After` does not cost wall time. */
  sleep?: (ms: number) => Promise<void>;
  /** Told about each wait (the CLI prints it). */
  onWait?: (reason: string, ms: number) => void;
}

export class SourceError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface PageOptions {
  /** `pageSize` for most lists, `limit` for `/events`. */
  sizeParam: 'pageSize' | 'limit';
  size: number;
  /** First page to read (default 1). */
  startPage?: number;
}

/** Only http and https sources; anything else (file:, data:, javascript:) is refused. */
export function parseSourceUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SourceError(`--from must be an absolute http or https URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SourceError(`--from must use http or https, not ${url.protocol}`);
  if (url.username || url.password) throw new SourceError('--from must not carry credentials; give the key with --token');
  url.hash = '';
  url.search = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/**
 * How long a 429 asks to wait, in ms: `Retry-After` (seconds or an HTTP date), else
 * `X-RateLimit-Reset` (the epoch second the limit resets, or seconds until then); undefined when
 * neither is there or readable.
 */
export function rateLimitWaitMs(headers: Headers, now = Date.now()): number | undefined {
  const after = retryAfterMs(headers.get('retry-after'), now);
  if (after !== undefined) return after;
  const reset = Number(headers.get('x-ratelimit-reset') ?? NaN);
  if (!Number.isFinite(reset) || reset < 0) return undefined;
  return reset > 1e9 ? Math.max(0, reset * 1000 - now) : reset * 1000;
}

/**
 * The error a source answered, in a line: Dub's and Waymark's `{error: {code, message}}`, Bitly's
 * `{message, description, errors}`, else the start of the text.
 */
export function describeErrorBody(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string }; message?: string; description?: string; errors?: { field?: string; message?: string }[] };
    if (body.error?.message) return `${body.error.code ?? 'error'}: ${body.error.message}`;
    if (body.message) {
      const fields = (body.errors ?? []).map((e) => [e.field, e.message].filter(Boolean).join(' ')).filter(Boolean);
      return [body.message, body.description, ...fields].filter(Boolean).join(': ');
    }
  } catch {
    // Not JSON: the text itself.
  }
  return text.slice(0, 300);
}

/** `Retry-After` in ms: seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export type Source = ReturnType<typeof createSource>;

export function createSource(options: SourceOptions) {
  const base = parseSourceUrl(options.baseUrl);
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 8;
  const maxRetryAfter = options.maxRetryAfterMs ?? 120_000;
  const maxRateLimitWait = options.maxRateLimitWaitMs ?? 60 * 60_000;
  const maxBody = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let requests = 0;

  function urlOf(path: string, params: Record<string, string | number | boolean | undefined>): URL {
    const url = new URL(path.replace(/^\//, ''), base);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /** One GET answered 2xx, as JSON; retried on 429, 5xx and network failures. */
  async function get<T>(path: string, params: Record<string, string | number | boolean | undefined> = {}): Promise<T> {
    const url = urlOf(path, params);
    let failures = 0;
    let limited = 0;
    let waitedForLimit = 0;
    for (;;) {
      requests++;
      let res: Response;
      try {
        res = await doFetch(url, {
          headers: { authorization: `Bearer ${options.token}`, accept: 'application/json' },
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'error',
        });
      } catch (err) {
        if (++failures >= maxAttempts) throw new SourceError(`GET ${url.pathname}: ${(err as Error).message}`);
        await wait(`network error on ${url.pathname}`, backoff(failures));
        continue;
      }
      if (res.ok) return JSON.parse(await readCapped(res, maxBody, url)) as T;
      const body = await res.text().catch(() => '');
      const failed = (note = '') => new SourceError(`GET ${url.pathname}${url.search} answered ${res.status}${note}: ${describeErrorBody(body)}`, res.status);
      if (res.status === 429) {
        // A rate limit is a wait: as long as the source asks (capped), else a backoff up to a minute.
        const ms = Math.min(rateLimitWaitMs(res.headers) ?? Math.min(60_000, 500 * 2 ** limited++), maxRetryAfter);
        if (waitedForLimit + ms > maxRateLimitWait) throw failed(` for ${Math.round(waitedForLimit / 60_000)} min (run the import again later: it continues where it stopped)`);
        waitedForLimit += ms;
        await wait(`429 on ${url.pathname}`, ms);
        continue;
      }
      if (res.status < 500 || ++failures >= maxAttempts) throw failed();
      await wait(`${res.status} on ${url.pathname}`, backoff(failures));
    }
  }

  async function wait(reason: string, ms: number): Promise<void> {
    options.onWait?.(reason, ms);
    await sleep(ms);
  }

  return {
    get,
    /** Requests sent so far (progress lines). */
    requests: () => requests,
    /**
     * The pages of a list, from `startPage` on, until one comes back shorter than `size`.
     * Yields each page with its number, so a caller can record how far it got.
     */
    async *pages<T>(path: string, params: Record<string, string | number | boolean | undefined>, page: PageOptions): AsyncGenerator<{ page: number; items: T[] }> {
      for (let n = page.startPage ?? 1; ; n++) {
        const items = await get<T[]>(path, { ...params, page: n, [page.sizeParam]: page.size });
        if (!Array.isArray(items)) throw new SourceError(`GET ${path} did not answer a list`);
        yield { page: n, items };
        if (items.length < page.size) return;
      }
    },
  };
}

/** The body as text, refused past `max` bytes (a hostile or broken source cannot fill the memory). */
async function readCapped(res: Response, max: number, url: URL): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > max) throw new SourceError(`GET ${url.pathname}: the answer (${declared} bytes) exceeds ${max} bytes`);
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) throw new SourceError(`GET ${url.pathname}: the answer exceeds ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** 0.5 s, 1 s, 2 s … up to 30 s. */
function backoff(attempt: number): number {
  return Math.min(30_000, 500 * 2 ** (attempt - 1));
}

/**
 * The few published endpoints the extension calls, with the user's API key as a bearer token.
 * Works against Waymark and the published service alike: the same paths, bodies and error shape
 * (`{error: {code, message}}`), whose message is what the popup shows.
 *
 * @example
 * const api = createApi({ baseUrl: 'https://links.example.com', apiKey: 'wm_…' });
 * const link = await api.createLink({ url: 'https://example.com/' });
 * api.qrCodeUrl(link.shortLink); // 'https://links.example.com/qr?url=…'
 */

export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

/** How long a call may take before the popup says so (the popup is short-lived). */
const TIMEOUT_MS = 15_000;

/**
 * @param {{ baseUrl: string, apiKey: string }} settings
 * @param {typeof fetch} [fetchImpl]
 */
export function createApi({ baseUrl, apiKey }, fetchImpl = fetch) {
  /** @param {string} method @param {string} path @param {unknown} [body] */
  async function call(method, path, body) {
    let response;
    try {
      response = await fetchImpl(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const reason = err instanceof Error && err.name === 'TimeoutError' ? 'did not answer in time' : 'could not be reached';
      throw new ApiError(0, 'network', `${baseUrl} ${reason}. Check the base URL in the options (and that the server allows this extension).`);
    }
    const text = await response.text();
    let json;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      const error = json && typeof json === 'object' && json.error && typeof json.error === 'object' ? json.error : {};
      throw new ApiError(response.status, String(error.code ?? 'http_error'), String(error.message ?? `The server answered ${response.status}.`));
    }
    return json;
  }
  return {
    /** The workspace's custom domains (the default domain is used when none is chosen). */
    domains: () => call('GET', '/domains?archived=false&pageSize=50'),
    tags: () => call('GET', '/tags?sortBy=name&sortOrder=asc&pageSize=100'),
    /** @param {Record<string, unknown>} body */
    createLink: (body) => call('POST', '/links', body),
    /** The newest links first. @param {number} count */
    recentLinks: (count) => call('GET', `/links?pageSize=${count}`),
    /** @param {string} linkId */
    linkInfo: (linkId) => call('GET', `/links/info?linkId=${encodeURIComponent(linkId)}`),
    /** The QR code image of a short link, from the API's public QR endpoint. @param {string} shortLink */
    qrCodeUrl: (shortLink) => `${baseUrl}/qr?url=${encodeURIComponent(shortLink)}&size=360&margin=2`,
  };
}

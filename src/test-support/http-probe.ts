/**
 * Polling a real process over HTTP: one JSON answer (or null while nothing listens), and a wait
 * until a condition holds.
 *
 * @example
 * await waitFor('/ready to answer 200', async () => (await getJson(port, '/ready'))?.status === 200);
 */

export interface JsonAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

/** GET `path` on 127.0.0.1:`port`; null when the connection fails or no answer comes within 5 s. */
export async function getJson<T = Record<string, unknown>>(port: number, path: string): Promise<JsonAnswer<T> | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: (await res.json()) as T };
  } catch {
    return null;
  }
}

/** Resolves once `check` is true, polling every 20 ms; throws after `ms` naming `what`. */
export async function waitFor(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

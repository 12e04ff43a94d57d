/**
 * The weight of a dashboard page's JavaScript and CSS as a browser receives it: every
 * `<script src>` and `<link rel="stylesheet" href>` the HTML references, fetched through the app
 * with `accept-encoding: gzip`, bytes on the wire summed. The budget is 150 KB; the
 * links bench prints it and a test holds it.
 *
 * @example
 * const { total, files } = await pageAssetWeight(t.app, html);   // { total: 17034, files: { '/dashboard/assets/htmx…': 16112, … } }
 */
import type { FastifyInstance } from 'fastify';

/** The same-origin addresses of the scripts and stylesheets `html` references, each once. */
export function referencedAssets(html: string): string[] {
  const found = new Set<string>();
  for (const m of html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)) found.add(m[1]!);
  for (const m of html.matchAll(/<link\b(?=[^>]*\brel="stylesheet")[^>]*\bhref="([^"]+)"/g)) found.add(m[1]!);
  return [...found].map((u) => u.replaceAll('&amp;', '&')).filter((u) => u.startsWith('/'));
}

export async function pageAssetWeight(app: FastifyInstance, html: string): Promise<{ total: number; files: Record<string, number> }> {
  const files: Record<string, number> = {};
  for (const url of referencedAssets(html)) {
    const res = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
    files[url] = res.rawPayload.length;
  }
  return { total: Object.values(files).reduce((a, b) => a + b, 0), files };
}

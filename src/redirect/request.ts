/**
 * Small readers of raw node:http requests for the redirect server, which runs without Fastify:
 * the host without its port, one cookie, and the password form's body.
 */
import type { IncomingMessage } from 'node:http';

/** `wm.localhost:3000` → `wm.localhost`; `[::1]` stays as it is. */
export function withoutPort(host: string): string {
  const colon = host.lastIndexOf(':');
  return colon > 0 && !host.endsWith(']') ? host.slice(0, colon) : host;
}

/** Value of one cookie from a Cookie header, without parsing the rest. */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return null;
}

const MAX_FORM_BYTES = 16 * 1024;

/** Reads a small urlencoded form body (the password form); an oversized one reads as empty. */
export function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // An oversized form is not a password: treat it as an empty (wrong) one.
      if (size > MAX_FORM_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve(new URLSearchParams());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

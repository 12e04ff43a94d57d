/**
 * One HTTP/1.1 exchange over a raw socket: the request is written byte for byte as given (so a
 * test can send what no HTTP client would: malformed escapes, invalid UTF-8, lying headers), and
 * the answer is read until the server closes the connection.
 *
 * @example
 * const res = await rawRequest(port, 'GET /links/%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
 * res.status; // 400
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Decodes a chunked body; returns the input when it is not chunked. */
function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export function rawRequest(port: number, request: string | Buffer, timeoutMs = 30_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const all = Buffer.concat(chunks);
      const headEnd = all.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        resolve({ status: 0, headers: {}, body: all.toString('utf8') });
        return;
      }
      const [statusLine, ...lines] = all.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body: Buffer = all.subarray(headEnd + 4);
      if (headers['transfer-encoding']?.includes('chunked')) body = dechunk(body);
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: body.toString('utf8') });
    });
    socket.write(request);
  });
}

/**
 * Uploads over real HTTP, as a browser or `curl --data-binary` sends them: the body written 64 KiB
 * at a time (so the server reads it as it arrives), and the multipart body of a form.
 *
 * @example
 * const body = multipartBody('----b', [{ name: '_csrf', value: token }, { name: 'file', filename: 'a.csv', value: csv }]);
 * const res = await postBody(base, '/dashboard/w/acme/links/import', { 'content-type': 'multipart/form-data; boundary=----b' }, body);
 */
import { request, type ClientRequest } from 'node:http';

const WRITE_BYTES = 64 * 1024;

/** POSTs `body`; `onRequest` gets the request (to destroy it midway). */
export function postBody(
  base: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  onRequest?: (req: ClientRequest) => void,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    onRequest?.(req);
    for (let at = 0; at < body.length; at += WRITE_BYTES) req.write(body.subarray(at, at + WRITE_BYTES));
    req.end();
  });
}

/** A `multipart/form-data` body of the given fields, in order. */
export function multipartBody(boundary: string, fields: readonly { name: string; value: string | Buffer; filename?: string }[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of fields) {
    const file = f.filename === undefined ? '' : `; filename="${f.filename}"\r\nContent-Type: text/csv`;
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"${file}\r\n\r\n`), Buffer.from(f.value), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

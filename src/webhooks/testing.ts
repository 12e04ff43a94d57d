/**
 * A webhook receiver for tests and benchmarks: node:http on 127.0.0.1, a random port, every
 * request kept (headers, exact body, time), answered with the status `answer` returns.
 *
 * @example
 * const r = await startReceiver();
 * r.answer = () => 500;
 * await r.until((got) => got.length >= 1);
 * await r.close();
 */
import { createServer } from 'node:http';

export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

export async function startReceiver() {
  const got: Received[] = [];
  const receiver = {
    got,
    url: '',
    /** The status of the next answer; 204 unless replaced. A promise that never settles holds the request. */
    answer: (_r: Received): number | Promise<number> => 204,
    /** The body of the next answer; empty unless replaced. */
    answerBody: (_r: Received): string => '',
    /** Waits for `condition`; the bound is generous: on a loaded machine the dispatcher's thread takes seconds to start. */
    async until(condition: (got: Received[]) => boolean, what = 'deliveries', timeoutMs = 60_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!condition(got)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received ${got.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      got.push(r);
      void Promise.resolve(receiver.answer(r)).then((status) => {
        res.statusCode = status;
        res.end(receiver.answerBody(r));
      });
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  receiver.url = `http://127.0.0.1:${address.port}/hook`;
  return receiver;
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

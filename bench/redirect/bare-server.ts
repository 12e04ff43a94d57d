/**
 * Side (a) of the redirect benchmark: the floor. A bare node:http server answering every request
 * with a 302, nothing else. Started by bench/redirect.ts with IPC; reports its port when listening
 * and its CPU time on request.
 */
import { createServer } from 'node:http';
import { threadCpuNs } from './thread-cpu.js';

const server = createServer((_req, res) => {
  res.writeHead(302, { location: 'https://example.com/landing', 'content-length': 0 });
  res.end();
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', (msg: { type: string }) => {
  if (msg.type === 'cpu') process.send?.({ type: 'cpu', stats: { ...process.cpuUsage(), threads: threadCpuNs() } });
  if (msg.type === 'close') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));

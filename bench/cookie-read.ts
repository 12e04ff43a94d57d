/**
 * The redirect's cookie reading (src/redirect/request.ts `readCookie`: one cookie by name, the
 * rest of the header not parsed) against `cookie`'s `parseCookie` (the whole header into an
 * object, then the name), on typical `Cookie` headers of a short-link visit. Both run in this
 * process, interleaved, best of `BENCH_ROUNDS` rounds; prints ns/op and the ratio
 * (bench/cookie-read/README.md).
 *
 * @example
 * npm run bench -- cookie-read
 */
import { parseCookie } from 'cookie';
import { readCookie } from '../src/redirect/request.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const OPS = Number(process.env.BENCH_OPS ?? 300_000);

// What visitors' browsers send a short-link host: nothing, our A/B cookie, or a host shared with a site's own cookies.
const HEADERS: [string, string | undefined, string][] = [
  ['no cookie header', undefined, 'wm_test_abc'],
  ['one cookie (the A/B one)', 'wm_test_abc=https%3A%2F%2Fexample.com%2Fb', 'wm_test_abc'],
  ['4 cookies, ours last', '_ga=GA1.2.1234567890.1700000000; _gid=GA1.2.987654321.1700000000; theme=dark; wm_test_abc=https%3A%2F%2Fexample.com%2Fb', 'wm_test_abc'],
  ['12 cookies (~600 B), ours absent', Array.from({ length: 12 }, (_, i) => `c${i}=${'v'.repeat(40)}${i}`).join('; '), 'wm_test_abc'],
];

function time(fn: () => unknown): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < OPS; i++) fn();
  return Number(process.hrtime.bigint() - t0) / OPS;
}

console.log(`node ${process.version}; ${OPS} ops a round, best of ${ROUNDS} rounds`);
console.log('| header | readCookie ns/op | cookie.parseCookie ns/op | ratio |');
console.log('|---|---:|---:|---:|');
let sink = 0;
for (const [label, header, name] of HEADERS) {
  // Same answer first: the benchmark compares readers that agree.
  const ours = readCookie(header, name);
  const theirs = header ? (parseCookie(header)[name] ?? null) : null;
  if (ours !== theirs) throw new Error(`${label}: readers disagree (${ours} vs ${theirs})`);
  let own = Infinity;
  let lib = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    own = Math.min(own, time(() => (sink += readCookie(header, name)?.length ?? 0)));
    lib = Math.min(lib, time(() => (sink += (header ? parseCookie(header)[name] : undefined)?.length ?? 0)));
  }
  console.log(`| ${label} | ${own.toFixed(0)} | ${lib.toFixed(0)} | ${(lib / own).toFixed(2)} |`);
}
if (sink < 0) console.log(sink);

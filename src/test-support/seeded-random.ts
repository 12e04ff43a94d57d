/**
 * A seeded pseudo-random generator (mulberry32) for tests and generated data sets: the same
 * sequence for the same seed on every run, so a failure can be replayed.
 *
 * @example
 * const rnd = seededRandom(4343);
 * const pick = Math.floor(rnd() * 10); // 0-9, the same every run
 */
export function seededRandom(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

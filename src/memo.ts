/**
 * A function's results remembered by string key, up to `max` keys; when full, everything is
 * forgotten at once. Cheaper than an LRU on every hit, and for the lookups it serves (user agents,
 * referers, destination URLs, tuple hashes) the working set refills within moments.
 *
 * @example
 * const parse = memoize((url: string) => new URL(url).hostname, 10_000);
 * parse('https://example.com/a'); // computed; the next call with the same string is a Map hit
 */
export function memoize<V>(compute: (key: string) => V, max: number): (key: string) => V {
  const kept = new Map<string, V>();
  return (key) => {
    let value = kept.get(key);
    if (value === undefined) {
      value = compute(key);
      if (kept.size >= max) kept.clear();
      kept.set(key, value);
    }
    return value;
  };
}

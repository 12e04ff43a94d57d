/**
 * Punycode (RFC 3492) encoding of keys, label by label, as `punycode.toASCII` spells it:
 * `🔥` → `xn--4v8h`, `a.münchen` → `a.xn--mnchen-3ya`. Node's own `punycode` module is deprecated
 * and `url.domainToASCII` lower-cases and rejects `/`, which keys may contain, so the algorithm
 * is written out here (behaviour.md §1.4 step 7: case is preserved in storage).
 */

const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;

/** Bias adaptation function of RFC 3492 §6.1. */
function adapt(delta: number, numPoints: number, firstTime: boolean): number {
  let d = firstTime ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / numPoints);
  let k = 0;
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW));
}

/** 0..25 → a..z, 26..35 → 0..9. */
function digit(d: number): string {
  return String.fromCharCode(d < 26 ? 97 + d : 22 + d);
}

/** Encodes one label (no `xn--` prefix); basic code points keep their case. */
export function punycodeEncode(input: string): string {
  const points = Array.from(input, (c) => c.codePointAt(0)!);
  let output = points
    .filter((c) => c < 0x80)
    .map((c) => String.fromCharCode(c))
    .join('');
  const basic = output.length;
  let handled = basic;
  if (basic > 0) output += '-';
  let n = INITIAL_N;
  let delta = 0;
  let bias = INITIAL_BIAS;
  while (handled < points.length) {
    let m = Number.MAX_SAFE_INTEGER;
    for (const c of points) if (c >= n && c < m) m = c;
    delta += (m - n) * (handled + 1);
    n = m;
    for (const c of points) {
      if (c < n) delta++;
      if (c !== n) continue;
      let q = delta;
      for (let k = BASE; ; k += BASE) {
        const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
        if (q < t) break;
        output += digit(t + ((q - t) % (BASE - t)));
        q = Math.floor((q - t) / (BASE - t));
      }
      output += digit(q);
      bias = adapt(delta, handled + 1, handled === basic);
      delta = 0;
      handled++;
    }
    delta++;
    n++;
  }
  return output;
}

/** Every label holding a non-ASCII character becomes `xn--…`; labels are split on the IDNA dots. */
export function toAsciiLabels(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7F]/.test(value)) return value;
  return value
    .replace(/[\u3002\uFF0E\uFF61]/g, '.')
    .split('.')
    // eslint-disable-next-line no-control-regex
    .map((label) => (/[^\x00-\x7F]/.test(label) ? `xn--${punycodeEncode(label)}` : label))
    .join('.');
}

/**
 * Countries for people: ISO 3166-1 alpha-2 codes (the `iso-3166` package's list of assigned
 * codes: what the redirect's geo look-up yields and a link's `geo` keys must be) with their
 * English names (`Intl.DisplayNames`, the ISO name where it has none) and flags (regional
 * indicator symbols: no images). The builder accepts a code, an alpha-3 code or a name typed in
 * any case and saves the alpha-2 code; anything else is refused rather than saved as a rule that
 * never matches.
 *
 * @example
 * countryCodeOf('germany');   // 'DE'
 * countryCodeOf('Germny');    // undefined
 * countryName('DE');          // 'Germany'
 * countryName('ZZ');          // 'ZZ' (not a country: shown as it is)
 */
import { iso31661 } from 'iso-3166';

const DISPLAY = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

export interface Country {
  code: string;
  name: string;
}

/** Every assigned ISO 3166-1 country, by English name. */
export const COUNTRIES: readonly Country[] = iso31661
  .map((c) => ({ code: c.alpha2, name: DISPLAY.of(c.alpha2) ?? c.name }))
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));

const BY_CODE = new Map(COUNTRIES.map((c) => [c.code, c]));
const LOOKUP = new Map<string, string>();
for (const c of iso31661) {
  for (const key of [c.alpha2, c.alpha3, c.name, DISPLAY.of(c.alpha2) ?? '']) if (key) LOOKUP.set(key.toLowerCase(), c.alpha2);
}

/** True for an assigned ISO 3166-1 alpha-2 code (upper case, as stored). */
export function isCountryCode(code: string): boolean {
  return BY_CODE.has(code);
}

/** The alpha-2 code for a code (alpha-2 or alpha-3) or an English name, any case; undefined otherwise. */
export function countryCodeOf(text: string): string | undefined {
  return LOOKUP.get(text.trim().toLowerCase());
}

/** The country's English name, or the value itself when it is no country code. */
export function countryName(code: string): string {
  return BY_CODE.get(code.toUpperCase())?.name ?? code;
}

/** The flag emoji of a country code ('' for anything else). */
export function countryFlag(code: string): string {
  const upper = code.toUpperCase();
  if (!BY_CODE.has(upper)) return '';
  return String.fromCodePoint(...[...upper].map((ch) => 0x1f1e6 + ch.charCodeAt(0) - 65));
}

/** "🇩🇪 Germany" for a code, the value itself for anything else (an unknown or empty country). */
export function countryLabel(code: string): string {
  const flag = countryFlag(code);
  return flag ? `${flag} ${countryName(code)}` : code;
}

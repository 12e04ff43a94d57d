/**
 * Sale amounts arrive in the smallest unit of any ISO 4217 currency and are stored in US cents,
 * so link and customer totals add up in one unit. Rates come from a table that ships with the
 * service (`currency-rates.json`) or from the operator's file named by CURRENCY_RATES_FILE,
 * which replaces it and is re-read when it changes.
 *
 * @example
 * const fx = createCurrencyConverter({});
 * fx.toUsdCents(1580, 'JPY'); // ≈ 1010 (¥1,580 at 156.5 per dollar)
 */
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import bundled from './currency-rates.json' with { type: 'json' };

/**
 * Currencies whose amounts are whole units (no minor unit). The list is the one card processors
 * use, so an amount copied from a processor's invoice converts correctly; ISK, HUF and TWD are
 * therefore taken in hundredths, as those processors send them.
 */
export const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set([
  'bif', 'clp', 'djf', 'gnf', 'jpy', 'kmf', 'krw', 'mga', 'pyg', 'rwf', 'ugx', 'vnd', 'vuv', 'xaf', 'xof', 'xpf',
]);

/** Currencies with three minor digits (ISO 4217): 5.124 KWD is sent as 5124. */
export const THREE_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['bhd', 'iqd', 'jod', 'kwd', 'lyd', 'omr', 'tnd']);

/** Number of minor-unit digits of a (lower-case) currency code. */
export function minorDigits(code: string): 0 | 2 | 3 {
  if (ZERO_DECIMAL_CURRENCIES.has(code)) return 0;
  if (THREE_DECIMAL_CURRENCIES.has(code)) return 3;
  return 2;
}

/** A loaded rate table: units of each currency per 1 USD, keyed by lower-case code. */
export interface RateTable {
  rates: ReadonlyMap<string, number>;
  /** Date the rates were taken, when the file says. */
  date: string | null;
  /** Where the table came from (`bundled` or a file path). */
  source: string;
}

const Rates = z.record(z.string().regex(/^[A-Za-z]{3}$/, 'currency codes are 3 letters'), z.number().positive().finite());
const WrappedRates = z.object({ base: z.string().optional(), date: z.string().optional(), rates: Rates }).loose();

/**
 * Validates a rate table in either form: `{ "base": "usd", "date": "…", "rates": { "eur": 0.97 } }`
 * or a flat `{ "eur": 0.97 }`. Throws with a readable message on anything else, including a
 * `base` other than USD (the conversion below divides by units-per-dollar).
 */
export function parseRateTable(json: unknown, source: string): RateTable {
  const wrapped = typeof json === 'object' && json !== null && 'rates' in json;
  const parsed = wrapped ? WrappedRates.safeParse(json) : Rates.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Currency rate table ${source}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const file = wrapped ? (parsed.data as z.infer<typeof WrappedRates>) : { rates: parsed.data as Record<string, number> };
  if (file.base && file.base.toLowerCase() !== 'usd') {
    throw new Error(`Currency rate table ${source}: base must be "usd" (rates are units per US dollar), got "${file.base}"`);
  }
  const map = new Map<string, number>([['usd', 1]]);
  for (const [code, rate] of Object.entries(file.rates)) map.set(code.toLowerCase(), rate);
  return { rates: map, date: file.date ?? null, source };
}

/**
 * Converts an amount in the smallest unit of `currency` to US cents, rounded to the nearest cent.
 * Returns undefined when the table has no rate for the currency.
 */
export function convertToUsdCents(amount: number, currency: string, rates: ReadonlyMap<string, number>): number | undefined {
  const code = currency.toLowerCase();
  if (code === 'usd') return amount;
  const rate = rates.get(code);
  if (!rate) return undefined;
  const major = amount / 10 ** minorDigits(code);
  return Math.round((major / rate) * 100);
}

export interface CurrencyConverter {
  /** US cents for `amount` (smallest unit of `currency`, any case), or undefined for an unknown currency. */
  toUsdCents(amount: number, currency: string): number | undefined;
  /** The table in use (re-read first if the operator's file changed). */
  table(): RateTable;
}

export interface CurrencyConverterOptions {
  /** Operator's rate file (CURRENCY_RATES_FILE); replaces the bundled table. */
  file?: string;
  /** How often, at most, the file's modification time is checked. Default 60 s. */
  checkEveryMs?: number;
  now?: () => number;
  /** Called when a changed file cannot be read; the previous table stays in use. */
  onReloadError?: (error: Error) => void;
}

function readTable(file: string): RateTable {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`Currency rate table ${file}: ${(err as Error).message}`);
  }
  return parseRateTable(json, file);
}

/**
 * The converter the sale endpoint uses. A bad operator file stops the start (thrown here);
 * a file that later turns bad is reported through `onReloadError` and the last good table is kept.
 */
export function createCurrencyConverter(options: CurrencyConverterOptions): CurrencyConverter {
  const now = options.now ?? Date.now;
  const checkEvery = options.checkEveryMs ?? 60_000;
  const file = options.file;
  let current = file ? readTable(file) : parseRateTable(bundled, 'bundled');
  let mtime = file ? statSync(file).mtimeMs : 0;
  let checkedAt = now();

  function refresh(): void {
    if (!file || now() - checkedAt < checkEvery) return;
    checkedAt = now();
    try {
      const m = statSync(file).mtimeMs;
      if (m === mtime) return;
      current = readTable(file);
      mtime = m;
    } catch (err) {
      options.onReloadError?.(err as Error);
    }
  }

  return {
    toUsdCents(amount, currency) {
      refresh();
      return convertToUsdCents(amount, currency, current.rates);
    },
    table() {
      refresh();
      return current;
    },
  };
}

/**
 * How pages print figures: counts and money with thousands separators (en-US, as the rest of the
 * dashboard's text), amounts in cents as the API stores them.
 *
 * @example
 * formatCount(20000);   // "20,000"
 * formatMoney(123456);  // "$1,234.56"
 */
const COUNT = new Intl.NumberFormat('en-US');
const MONEY = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export function formatCount(n: number): string {
  return COUNT.format(n);
}

/** `cents` (the API's sale amounts) as dollars. */
export function formatMoney(cents: number): string {
  return MONEY.format(cents / 100);
}

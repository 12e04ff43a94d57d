/**
 * Text that a spreadsheet must show as text. Excel, LibreOffice and Google Sheets evaluate a CSV
 * cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula
 * (`=HYPERLINK(…)`, `=cmd|…`), and exports carry text that anyone may have written: a link's
 * title, a visitor's `Referer` header, a customer's name. Every CSV writer puts its text cells
 * through `neutraliseFormula` (exports/cells.ts), which prefixes `'`, the spreadsheets' "this is
 * text" mark, as OWASP's CSV injection guidance advises; the importer (imports/rows.ts) reads
 * cells back through `restoreFormula`, so an exported file imports to the values it was made of.
 *
 * A value that already begins with quotes followed by one of those characters (`'=x`) gets one
 * more quote (`''=x`), and only such a value loses one on the way back, so the pair is exact for
 * every string: `restoreFormula(neutraliseFormula(s)) === s`. A spreadsheet shows `''=x` as `'=x`.
 *
 * @example
 * neutraliseFormula('=HYPERLINK("https://evil.example")'); // `'=HYPERLINK("https://evil.example")`
 * neutraliseFormula('Spring sale');                         // 'Spring sale'
 * restoreFormula("'-20% off");                              // '-20% off'
 */

/** Quotes, then a character that starts a formula. */
const ESCAPED = /^'+[=+\-@\t\r]/;
const FORMULA = /^'*[=+\-@\t\r]/;

/** `s` with a leading `'` when a spreadsheet would read it as a formula (or it has one already). */
export function neutraliseFormula(s: string): string {
  return FORMULA.test(s) ? `'${s}` : s;
}

/** The inverse of `neutraliseFormula`: the value a neutralised cell was made from. */
export function restoreFormula(s: string): string {
  return ESCAPED.test(s) ? s.slice(1) : s;
}

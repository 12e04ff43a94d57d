/**
 * Test helpers that read the figures the analytics pages render (their data attributes and the
 * chart's JSON block), so tests can compare them with the API's answers.
 *
 * @example
 * const page = readAnalyticsPage(res.body);
 * page.totals.clicks; page.cards.get('countries')![0].value; page.series.clicks;
 */
export function unescapeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export interface PageRow {
  value: string;
  clicks: number;
  leads: number;
  sales: number;
  saleAmount: number;
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? unescapeHtml(m[1]!) : undefined;
}

export function readAnalyticsPage(html: string) {
  const totalsTag = /<dl[^>]*id="totals"[^>]*>/.exec(html)?.[0] ?? '';
  const totals = {
    clicks: Number(attr(totalsTag, 'data-clicks')),
    leads: Number(attr(totalsTag, 'data-leads')),
    sales: Number(attr(totalsTag, 'data-sales')),
    saleAmount: Number(attr(totalsTag, 'data-sale-amount')),
  };
  const chartTag = /<div id="analytics-chart"[^>]*>/.exec(html)?.[0] ?? '';
  const json = attr(chartTag, 'data-series');
  const series = json ? (JSON.parse(json) as { timezone: string; x: number[]; clicks: number[]; leads: number[]; sales: number[] }) : undefined;
  const cards = new Map<string, PageRow[]>();
  const links = new Map<string, string[]>();
  for (const section of html.matchAll(/<section class="breakdown" data-group="([^"]+)"[\s\S]*?<\/section>/g)) {
    const rows: PageRow[] = [];
    const hrefs: string[] = [];
    for (const tr of section[0].matchAll(/<tr data-value[^>]*>[\s\S]*?<\/tr>/g)) {
      const tag = /<tr[^>]*>/.exec(tr[0])![0];
      rows.push({
        value: attr(tag, 'data-value')!,
        clicks: Number(attr(tag, 'data-clicks')),
        leads: Number(attr(tag, 'data-leads')),
        sales: Number(attr(tag, 'data-sales')),
        saleAmount: Number(attr(tag, 'data-sale-amount')),
      });
      const a = /<a href="([^"]*)"/.exec(tr[0]);
      if (a) hrefs.push(unescapeHtml(a[1]!));
    }
    cards.set(section[1]!, rows);
    links.set(section[1]!, hrefs);
  }
  return { totals, series, cards, links };
}

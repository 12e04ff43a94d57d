/**
 * Hostile values for rendering tests, and the check of what a browser would make of a page that
 * shows them. Each value carries a numbered marker, `"'><x-hostile-N>`: a quote to leave an
 * attribute, then a tag. The page is parsed as a browser parses it (parse5, the HTML standard's
 * algorithm), and a marker fails the check when
 *
 * - it became an element (`<x-hostile-N>` in the tree: text or an attribute was left), or
 * - its `<` stands raw in the source outside an attribute value (unescaped text: in a `<title>`
 *   or `<textarea>` it is no element yet, but one `</title>` away from one).
 *
 * Inside a double-quoted attribute a raw `<` is only text: @kitajs/html escapes the quote, which
 * is all the attribute needs, so markers there pass. URL attributes must not run script
 * (`javascript:`, `vbscript:`, `data:` outside images). `shown` lists the markers the page does
 * display (decoded text or attribute values), so a test can tell "escaped" from "absent".
 *
 * @example
 * const names = new HostileNames();
 * const folder = names.value('folder name');            // "'><x-hostile-1>
 * const report = inspectHtml(html);
 * assert.deepEqual(report.problems, []);
 * assert.ok(report.shown.has(names.numberOf('folder name')));
 */
import { parse, type DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const MARKER = /<x-hostile-(\d+)>/g;
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'poster', 'hx-get', 'hx-post', 'hx-put', 'hx-patch', 'hx-delete']);

/** Numbered hostile values, each remembering the field it stands for. */
export class HostileNames {
  private readonly fields: string[] = [];

  /** A new hostile value for `field` (one per field: the number names it in failures). */
  value(field: string): string {
    if (this.fields.includes(field)) throw new Error(`hostile value for "${field}" made twice`);
    this.fields.push(field);
    return `"'><x-hostile-${this.fields.length}>`;
  }

  numberOf(field: string): number {
    const at = this.fields.indexOf(field);
    if (at < 0) throw new Error(`no hostile value for "${field}"`);
    return at + 1;
  }

  fieldOf(n: number): string {
    return this.fields[n - 1] ?? `marker ${n}`;
  }

  get all(): readonly string[] {
    return this.fields;
  }
}

export interface HtmlReport {
  /** What a browser would do with data: each entry names the marker and where it is. */
  problems: { marker: number; problem: string; context: string }[];
  /** Markers the page displays, decoded (as text or as an attribute's value). */
  shown: Set<number>;
}

function isElement(node: Node): node is Element {
  return 'tagName' in node;
}

function markersIn(text: string): number[] {
  return [...text.matchAll(MARKER)].map((m) => Number(m[1]));
}

/** Parses `html` as a browser would and reports each marker that is not plain data. */
export function inspectHtml(html: string): HtmlReport {
  const doc = parse(html, { sourceCodeLocationInfo: true });
  const problems: HtmlReport['problems'] = [];
  const shown = new Set<number>();
  const attributeSpans: [number, number][] = [];
  const around = (at: number) => html.slice(Math.max(0, at - 60), at + 40).replace(/\s+/g, ' ');

  const visit = (node: Node) => {
    if (isElement(node)) {
      const made = /^x-hostile-(\d+)$/.exec(node.tagName);
      const at = node.sourceCodeLocation?.startOffset ?? 0;
      if (made) problems.push({ marker: Number(made[1]), problem: 'became an element', context: around(at) });
      for (const attr of node.attrs) {
        for (const n of markersIn(attr.value)) shown.add(n);
        const span = node.sourceCodeLocation?.attrs?.[attr.name];
        if (span) attributeSpans.push([span.startOffset, span.endOffset]);
        const url = attr.value.trim().toLowerCase();
        const scheme = /^([a-z][a-z0-9+.-]*):/.exec(url)?.[1];
        const dataOk = attr.name === 'src' && node.tagName === 'img';
        if (URL_ATTRIBUTES.has(attr.name) && (scheme === 'javascript' || scheme === 'vbscript' || (scheme === 'data' && !dataOk))) {
          problems.push({ marker: markersIn(attr.value)[0] ?? 0, problem: `${attr.name} runs a ${scheme}: URL`, context: around(span?.startOffset ?? at) });
        }
      }
      if (node.tagName === 'template') visit((node as DefaultTreeAdapterMap['template']).content);
    }
    if (node.nodeName === '#text') for (const n of markersIn((node as DefaultTreeAdapterMap['textNode']).value)) shown.add(n);
    if ('childNodes' in node) for (const child of node.childNodes) visit(child);
  };
  visit(doc);

  for (const m of html.matchAll(MARKER)) {
    const start = m.index;
    const inAttribute = attributeSpans.some(([s, e]) => s <= start && start + m[0].length <= e);
    if (!inAttribute) problems.push({ marker: Number(m[1]), problem: 'printed raw (unescaped <)', context: around(start) });
  }
  return { problems, shown };
}

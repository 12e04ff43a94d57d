/** The hostile-markup check itself: it must fail on each way data can become markup, and only then. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Html from '@kitajs/html';
import { HostileNames, inspectHtml } from './hostile-html.js';

const names = new HostileNames();
const v = names.value('name');
const n = names.numberOf('name');
const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
const problems = (html: string) => inspectHtml(html).problems.map((p) => p.problem);

test('escaped text and quoted attributes pass, and count as shown', () => {
  for (const html of [
    page(`<p>${Html.escapeHtml(v)}</p>`),
    page(`<input value="${v.replaceAll('"', '&#34;')}">`),
    page(`<option value="x">${Html.escapeHtml(v)}</option>`),
    `<!doctype html><html><head><title>${Html.escapeHtml(v)}</title></head><body></body></html>`,
  ]) {
    const report = inspectHtml(html);
    assert.deepEqual(report.problems, [], html);
    assert.ok(report.shown.has(n), html);
  }
  assert.equal(inspectHtml(page('<p>nothing</p>')).shown.size, 0);
});

test('raw text, a left attribute, raw RCDATA and script URLs fail', () => {
  assert.deepEqual(problems(page(`<p>${v}</p>`)), ['became an element', 'printed raw (unescaped <)']);
  assert.deepEqual(problems(page(`<option>${v}</option>`)), ['became an element', 'printed raw (unescaped <)']);
  // The quote not escaped: the value leaves the attribute and its tag opens.
  assert.deepEqual(problems(page(`<input value="${v}">`)), ['became an element', 'printed raw (unescaped <)']);
  // Inside <title> or <textarea> the tag stays text, but the `<` is raw: one `</title>` from markup.
  assert.deepEqual(problems(`<!doctype html><html><head><title>${v}</title></head><body></body></html>`), ['printed raw (unescaped <)']);
  assert.deepEqual(problems(page(`<textarea>${v}</textarea>`)), ['printed raw (unescaped <)']);
  assert.deepEqual(problems(page(`<!-- ${v} -->`)), ['printed raw (unescaped <)']);
  assert.deepEqual(problems(page('<a href=" JavaScript:alert(1)">x</a>')), ['href runs a javascript: URL']);
  assert.deepEqual(problems(page('<form action="data:text/html,x"></form>')), ['action runs a data: URL']);
  assert.deepEqual(problems(page('<img src="data:image/png;base64,AA" alt="">')), []);
});

test('a fragment (an htmx answer) is checked the same way', () => {
  assert.deepEqual(problems(`<span class="error">${v}</span>`), ['became an element', 'printed raw (unescaped <)']);
  assert.deepEqual(problems(`<span class="error">${Html.escapeHtml(v)}</span>`), []);
});

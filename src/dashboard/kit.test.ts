import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DataTable, PostButton, safeNext } from './kit.js';

test('after login, only addresses inside the dashboard are followed', () => {
  assert.equal(safeNext('/dashboard/w/acme/links?after=link_1'), '/dashboard/w/acme/links?after=link_1');
  assert.equal(safeNext('/dashboard'), '/dashboard');
  for (const bad of ['//evil.example/dashboard', 'https://evil.example/dashboard', '/dashboardx', '/dashboard/\\evil', '/dashboard/a\r\nx: y', '/docs', undefined, 42]) {
    assert.equal(safeNext(bad), '/dashboard', String(bad));
  }
});

test('DataTable and PostButton: headings and labels escaped, attribute values kept inside their quotes; the CSRF field in every form', async () => {
  const table = await DataTable({ label: 'Things & more', columns: ['<b>Name</b>', { hidden: 'Actions & more' }], class: 'x', children: '<tr><td>row</td></tr>' });
  assert.match(table, /^<div class="table-wrap" role="region" aria-label="Things & more" tabindex="0"><table class="x"><thead><tr><th scope="col">&lt;b>Name&lt;\/b><\/th><th scope="col"><span class="visually-hidden">Actions &amp; more<\/span><\/th><\/tr><\/thead><tbody><tr><td>row<\/td><\/tr><\/tbody><\/table><\/div>$/);
  const button = await PostButton({ action: '/dashboard/w/a/x/1/delete', csrf: 'tok"en', label: '<i>Delete</i>', danger: true, confirm: 'Delete "x"><script>?', confirmButton: 'Delete it' });
  assert.match(button, /<form method="post" action="\/dashboard\/w\/a\/x\/1\/delete" class="inline">/);
  assert.match(button, /name="_csrf" value="tok&#34;en"|name="_csrf" value="tok&quot;en"/);
  assert.match(button, /<button type="submit" class="danger" data-confirm="Delete &#34;x&#34;><script>\?" data-confirm-button="Delete it">&lt;i>Delete&lt;\/i><\/button>/);
  const plain = await PostButton({ action: '/r', csrf: 't', label: 'Resume' });
  assert.doesNotMatch(plain, /class="danger"|data-confirm/, 'no empty attributes');
});

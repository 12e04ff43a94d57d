/**
 * The bounds of one import over HTTP (issue 26, class 1): the file's bytes (IMPORT_MAX_BYTES: 413
 * before anything is read when the request declares its length, or as soon as the stream passes
 * it) and rows (IMPORT_MAX_ROWS: 422 once the first rows past it arrive, the rows before it
 * imported), each answered with the spec's error body naming the cap; two imports of a workspace
 * at a time (429 for a third); an import whose client goes away after sending the whole file runs
 * to the end (its job tells it); in process, an aborted import writes nothing after the batch in flight.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable } from 'node:stream';
import { createTestApp, type TestApp } from '../test-support/harness.js';
import { postBody } from '../test-support/upload.js';
import { createStandaloneImporter } from './standalone.js';
import { ImportAborted } from './service.js';

let t: TestApp;
before(async () => {
  t = await createTestApp({ env: { IMPORT_MAX_BYTES: '4096', IMPORT_MAX_ROWS: '30' } });
});
after(() => t.close());

const linkCount = async () => (await t.inject({ method: 'GET', url: '/links/count' })).json() as number;
const rows = (n: number, prefix: string) => ['url,key', ...Array.from({ length: n }, (_, i) => `https://example.com/${prefix}/${i},${prefix}-${i}`)].join('\n') + '\n';

test('a file over IMPORT_MAX_BYTES: 413 naming the cap, before reading when its length is declared', async () => {
  const before = await linkCount();
  const big = rows(200, 'big');
  assert.ok(big.length > 4096);
  const declared = await t.inject({ method: 'POST', url: '/links/import', payload: big, headers: { 'content-type': 'text/csv' } });
  assert.equal(declared.statusCode, 413);
  const { error } = declared.json() as { error: { code: string; message: string; doc_url: string } };
  assert.equal(error.code, 'payload_too_large');
  assert.match(error.message, /larger than 4 KiB, the most one import takes/);
  assert.match(error.doc_url, /errors#payload-too_large$/);
  // Streamed without a length: refused once 4 KiB went by.
  const streamed = await t.inject({ method: 'POST', url: '/links/import', payload: Readable.from([Buffer.from(big)]), headers: { 'content-type': 'text/csv' } });
  assert.equal(streamed.statusCode, 413, streamed.body);
  assert.match(streamed.json().error.message, /larger than 4 KiB/);
  assert.equal(await linkCount(), before);
});

test('a file over IMPORT_MAX_ROWS: 422 naming the cap; the first rows are imported, no more', async () => {
  const before = await linkCount();
  const dry = await t.inject({ method: 'POST', url: '/links/import?dryRun=true', payload: rows(31, 'cap'), headers: { 'content-type': 'text/csv' } });
  assert.equal(dry.statusCode, 422);
  assert.match(dry.json().error.message, /more than 30 rows.*The first 30 rows were checked/);
  assert.equal(await linkCount(), before);
  const real = await t.inject({ method: 'POST', url: '/links/import', payload: rows(31, 'cap'), headers: { 'content-type': 'text/csv' } });
  assert.equal(real.statusCode, 422);
  assert.equal(real.json().error.code, 'unprocessable_entity');
  assert.match(real.json().error.message, /The first 30 rows were imported/);
  assert.equal(await linkCount(), before + 30);
  const exact = await t.inject({ method: 'POST', url: '/links/import', payload: rows(30, 'cap'), headers: { 'content-type': 'text/csv' } });
  assert.equal(exact.statusCode, 200, 'exactly the cap passes');
  assert.equal(exact.json().counts.skipped, 30);
});

test('two imports of a workspace at a time: a third is answered 429 before its body is read', async () => {
  const bodies = [new PassThrough(), new PassThrough()];
  const running = bodies.map((payload) => t.inject({ method: 'POST', url: '/links/import?dryRun=true', payload, headers: { 'content-type': 'text/csv' } }));
  for (const b of bodies) b.write('url\nhttps://example.com/slow\n');
  // Both have begun: the third is refused, another workspace's is not.
  await new Promise((r) => setTimeout(r, 300));
  const third = await t.inject({ method: 'POST', url: '/links/import?dryRun=true', payload: 'url\nhttps://example.com/third\n', headers: { 'content-type': 'text/csv' } });
  assert.equal(third.statusCode, 429, third.body);
  assert.equal(third.json().error.code, 'rate_limit_exceeded');
  assert.ok(third.headers['retry-after']);
  const other = await t.addWorkspace();
  const theirs = await t.inject({ method: 'POST', url: '/links/import?dryRun=true', payload: 'url\nhttps://example.com/theirs\n', headers: { ...other.headers, 'content-type': 'text/csv' } });
  assert.equal(theirs.statusCode, 200, theirs.body);
  for (const b of bodies) b.end();
  for (const res of await Promise.all(running)) assert.equal(res.statusCode, 200, res.body);
  const again = await t.inject({ method: 'POST', url: '/links/import?dryRun=true', payload: 'url\nhttps://example.com/again\n', headers: { 'content-type': 'text/csv' } });
  assert.equal(again.statusCode, 200, 'a finished import frees its place');
});

test('an import whose client goes away once the whole file is sent runs to the end, and its job says so', { timeout: 300_000 }, async () => {
  const app = await createTestApp({ env: { IMPORT_MAX_BYTES: String(64 * 2 ** 20) } });
  try {
    const base = await app.listen();
    const total = 20_000;
    const csv = Buffer.from(['url,key', ...Array.from({ length: total }, (_, i) => `https://example.com/gone/${i},gone-${i}`)].join('\n') + '\n');
    // The route's import, to know when it has stopped.
    const requests = app.modules.imports.requests;
    const importCsv = requests.importCsv.bind(requests);
    let ended: Promise<unknown> | undefined;
    requests.importCsv = (...args) => {
      const run = importCsv(...args);
      ended = run.then(
        () => 'finished',
        (err: unknown) => err,
      );
      return run;
    };
    const count = async () => (await app.inject({ method: 'GET', url: '/links/count' })).json() as number;
    let abortedAt = -1;
    const sent = postBody(base, '/links/import', { authorization: `Bearer ${app.key}`, 'content-type': 'text/csv' }, csv, (req) => {
      // The whole file goes out; once the first batch is written, the client hangs up.
      const watch = setInterval(async () => {
        if (abortedAt >= 0 || (await count()) < 250) return;
        req.destroy();
        abortedAt = await count();
        clearInterval(watch);
      }, 20);
    });
    await assert.rejects(sent, /socket hang up|ECONNRESET/);
    assert.ok(ended, 'the import started');
    assert.equal(await ended, 'finished');
    assert.ok(abortedAt < total, `the client left before the end: at ${abortedAt} of ${total}`);
    assert.equal(await count(), total, 'every row imported');
    const [job] = (await app.inject({ method: 'GET', url: '/imports' })).json() as { state: string; counts: { created: number } }[];
    assert.equal(job?.state, 'completed');
    assert.equal(job?.counts.created, total);
  } finally {
    await app.close();
  }
});

test('in process, an aborted import writes no batch after the abort', async () => {
  const importer = createStandaloneImporter(t.config, t.database);
  const ws = (await t.ctx.workspaces.findWorkspace(t.workspaceId))!;
  const before = await linkCount();
  const controller = new AbortController();
  let written = 0;
  const run = importer.importCsv(ws, Readable.from([Buffer.from(rows(1_000, 'stop'))]), {
    dryRun: false,
    batchSize: 100,
    signal: controller.signal,
    onItem: (item) => {
      // Abort as the second batch is reported: the third and later are neither judged nor written.
      if (item.status === 'created' && ++written === 150) controller.abort();
    },
  });
  await assert.rejects(run, ImportAborted);
  assert.equal(await linkCount(), before + 200);
});

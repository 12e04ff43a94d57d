/**
 * The import's parsing pieces without a database: multipart bodies split at every byte, CSV line
 * numbers, header layouts and mappings, and the cells of a row.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { boundaryOf, MAX_FIELD_BYTES, multipartField, multipartParts } from './multipart.js';
import { readCsvRows } from './parse.js';
import { parseMappingPairs, resolveColumns } from './layouts.js';
import { parseCreated, splitShortLink, splitTags, toLinkInput } from './rows.js';
import { ApiError } from '../http/errors.js';

async function collect(chunks: AsyncIterable<Buffer>): Promise<string> {
  const out: Buffer[] = [];
  for await (const c of chunks) out.push(c);
  return Buffer.concat(out).toString();
}

async function* pieces(text: string, size: number): AsyncGenerator<Buffer> {
  const buf = Buffer.from(text);
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

describe('multipart', () => {
  const boundary = 'xYz-123';
  const csv = 'url,key\r\nhttps://example.com/a,a\r\n--not-the-boundary\r\n';
  const body = [`--${boundary}`, 'Content-Disposition: form-data; name="other"', '', 'value', `--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="x.csv"', '', csv, `--${boundary}--`, ''].join('\r\n');

  test('the file field, whatever the chunk size', async () => {
    for (const size of [1, 2, 3, 7, 16, 1000]) assert.equal(await collect(multipartField(pieces(body, size), boundary, 'file')), csv, `chunks of ${size}`);
  });

  test('the parts in order: fields as text, unread or half-read parts skipped, whatever the chunk size', async () => {
    const three = [`--${boundary}`, 'Content-Disposition: form-data; name="_csrf"', '', 'tok', `--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="x.csv"', '', csv, `--${boundary}`, 'Content-Disposition: form-data; name="dryRun"', '', 'true', `--${boundary}--`, ''].join('\r\n');
    for (const size of [1, 3, 16, 1000]) {
      const seen: string[] = [];
      for await (const part of multipartParts(pieces(three, size), boundary)) {
        if (part.name === 'file') {
          assert.equal(part.filename, 'x.csv');
          // Read one chunk, then leave the rest: the next part is still found.
          await part.content.next();
          await part.content.return(undefined);
          seen.push('file');
        } else seen.push(`${part.name}=${await part.text(100)}`);
      }
      assert.deepEqual(seen, ['_csrf=tok', 'file', 'dryRun=true'], `chunks of ${size}`);
      const names: string[] = [];
      for await (const part of multipartParts(pieces(three, size), boundary)) names.push(part.name); // nothing read
      assert.deepEqual(names, ['_csrf', 'file', 'dryRun'], `chunks of ${size}, unread`);
    }
    const long = multipartParts(pieces(three, 7), boundary);
    const first = await long.next();
    await assert.rejects(first.value!.text(2), (e: unknown) => e instanceof ApiError && /longer than 2 bytes/.test(e.message));
  });

  test('a "file" part without a filename: taken up to MAX_FIELD_BYTES, a 422 asking for a file upload past it', async () => {
    const fieldStyle = (content: string) => [`--${boundary}`, 'Content-Disposition: form-data; name="file"', '', content, `--${boundary}--`, ''].join('\r\n');
    assert.equal(await collect(multipartField(pieces(fieldStyle(csv), 5), boundary, 'file')), csv);
    const big = 'url\r\n' + 'https://example.com/x\r\n'.repeat(Math.ceil(MAX_FIELD_BYTES / 20));
    await assert.rejects(collect(multipartField(pieces(fieldStyle(big), 4096), boundary, 'file')), (e: unknown) => e instanceof ApiError && e.code === 'unprocessable_entity' && /upload the CSV as a file/.test(e.message));
  });

  test('a body with another boundary, or garbage, is a 400 for a malformed body', async () => {
    await assert.rejects(collect(multipartField(pieces(body, 7), 'other-boundary', 'file')), (e: unknown) => e instanceof ApiError && e.code === 'bad_request' && /Malformed multipart body/.test(e.message));
    await assert.rejects(collect(multipartField(pieces('not multipart at all', 7), boundary, 'file')), (e: unknown) => e instanceof ApiError && e.code === 'bad_request');
  });

  test('an error of the body itself (a size limit, a failed disk) reaches the reader as it is, never as a 400', async () => {
    const limit = new ApiError('payload_too_large', 'too large');
    const disk = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    for (const failure of [limit, disk]) {
      // Before the file part begins, and in the middle of it.
      for (const upTo of [body.indexOf('value'), body.indexOf('https') + 5]) {
        async function* failing() { yield Buffer.from(body.slice(0, upTo)); throw failure; }
        await assert.rejects(collect(multipartField(failing(), boundary, 'file')), (e: unknown) => e === failure, `${failure.message} at ${upTo}`);
      }
    }
  });

  test('a file part cut at maxFileBytes throws a 413 after its allowed bytes, never ends as if whole', async () => {
    const seen: Buffer[] = [];
    const read = (async () => {
      for await (const part of multipartParts(pieces(body, 7), boundary, { maxFileBytes: 10 })) {
        if (part.name === 'file') for await (const c of part.content) seen.push(c);
      }
    })();
    await assert.rejects(read, (e: unknown) => e instanceof ApiError && e.code === 'payload_too_large' && /larger than the limit of 10 bytes/.test(e.message));
    const got = Buffer.concat(seen).toString();
    assert.ok(got.length <= 10 && csv.startsWith(got), `at most the allowed bytes were passed on: ${JSON.stringify(got)}`);
    assert.equal(await collect(multipartField(pieces(body, 7), boundary, 'file')), csv, 'without the option, no file limit');
  });

  test('a field part cut at MAX_FIELD_BYTES: its content throws the 422, its text the 400', async () => {
    const long = 'x'.repeat(MAX_FIELD_BYTES + 1);
    const form = [`--${boundary}`, 'Content-Disposition: form-data; name="note"', '', long, `--${boundary}--`, ''].join('\r\n');
    for await (const part of multipartParts(pieces(form, 4096), boundary)) {
      assert.equal(part.truncated, true);
      await assert.rejects(collect(part.content), (e: unknown) => e instanceof ApiError && e.code === 'unprocessable_entity');
      await assert.rejects(part.text(MAX_FIELD_BYTES * 2), (e: unknown) => e instanceof ApiError && e.code === 'bad_request');
    }
  });

  test('no file field, a truncated body, the boundary parameter', async () => {
    await assert.rejects(collect(multipartField(pieces(body, 5), boundary, 'upload')), (e: unknown) => e instanceof ApiError && /no "upload" field/.test(e.message));
    await assert.rejects(collect(multipartField(pieces(body.slice(0, body.indexOf('https')), 4), boundary, 'file')), ApiError);
    assert.equal(boundaryOf('multipart/form-data; boundary="a b"'), 'a b');
    assert.equal(boundaryOf('multipart/form-data; boundary=abc; charset=utf-8'), 'abc');
    assert.equal(boundaryOf('multipart/form-data'), undefined);
  });
});

describe('CSV rows', () => {
  test('line numbers count the header and a quoted line break; a BOM and blank lines are ignored', async () => {
    const rows: { record: string[]; line: number }[] = [];
    for await (const r of readCsvRows(pieces('\uFEFFurl,title\n\nhttps://a.example,"two\nlines"\nhttps://b.example,x\n', 3))) rows.push(r);
    assert.deepEqual(rows.map((r) => r.line), [1, 4, 5]);
    assert.deepEqual(rows[0]!.record, ['url', 'title']);
    assert.equal(rows[1]!.record[1], 'two\nlines');
  });
});

describe('layouts and mappings', () => {
  test('each known export by its signature columns', () => {
    assert.equal(resolveColumns(['id', 'domain', 'key', 'shortLink', 'url'], {}).layout, 'dub');
    assert.equal(resolveColumns(['created', 'title', 'link', 'long_url'], {}).layout, 'bitly');
    assert.equal(resolveColumns(['createdAt', 'shortUrl', 'longUrl', 'visits'], {}).layout, 'shlink');
    assert.equal(resolveColumns(['keyword', 'url', 'title', 'timestamp'], {}).layout, 'yourls');
    assert.equal(resolveColumns(['address', 'target', 'domain'], {}).layout, 'kutt');
    assert.equal(resolveColumns(['Long URL', 'Slug'], {}).layout, 'generic');
    assert.deepEqual(resolveColumns(['Long URL', 'Slug'], {}).columns, { url: 0, key: 1 });
  });

  test('a mapping overrides the header and names unknown fields or headers as errors', () => {
    assert.deepEqual(resolveColumns(['url', 'Other'], { url: 'other' }).columns.url, 1);
    assert.throws(() => resolveColumns(['url'], { colour: 'url' }), /Unknown import field "colour"/);
    assert.throws(() => resolveColumns(['url'], { key: 'Slug' }), /does not have/);
    assert.throws(() => resolveColumns(['a', 'b'], {}), /no destination URL column/);
    assert.deepEqual(parseMappingPairs(['url=Long URL', ' key = Back=half ']), { url: 'Long URL', key: 'Back=half' });
    assert.throws(() => parseMappingPairs(['url']), ApiError);
  });

  test('cells: tags, dates, short links', () => {
    assert.deepEqual(splitTags('a, b|c;a'), ['a', 'b', 'c']);
    assert.equal(parseCreated('2024-01-05 10:00:00 +0000'), Date.parse('2024-01-05T10:00:00Z'));
    assert.equal(parseCreated('1700000000'), 1_700_000_000_000);
    assert.equal(parseCreated('1700000000123'), 1_700_000_000_123);
    assert.ok(Number.isNaN(parseCreated('yesterday')));
    assert.deepEqual(splitShortLink('bit.ly/Ab%20c'), { domain: 'bit.ly', key: 'Ab c' });
    assert.equal(splitShortLink('https://bit.ly/'), undefined);
    assert.deepEqual(toLinkInput(['x', 'https://e.example', 'not a date'], { key: 0, url: 1, createdAt: 2 }), { error: 'Invalid created date "not a date": give an ISO-8601 date or a Unix time.' });
  });
});

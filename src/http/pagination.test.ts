import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { pageQuery } from './pagination.js';

const Paged = z.object(pageQuery({ maxPageSize: 50, defaultPage: 1, defaultPageSize: 50 }));
const Optional = z.object(pageQuery({ maxPageSize: 100, lowerBound: 'min1' }));

function issue(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  assert.equal(result.success, false, JSON.stringify(input));
  const [first] = result.error!.issues;
  return { path: first!.path.join('.'), code: first!.code, message: first!.message };
}

test('defaults apply when sent nothing, and stay absent when none is set', () => {
  assert.deepEqual(Paged.parse({}), { page: 1, pageSize: 50 });
  assert.deepEqual(Optional.parse({}), {});
  const mixed = z.object(pageQuery({ maxPageSize: 100, defaultPageSize: 100, lowerBound: 'min1' }));
  assert.deepEqual(mixed.parse({}), { pageSize: 100 });
});

test('query strings are coerced to whole numbers', () => {
  assert.deepEqual(Paged.parse({ page: '3', pageSize: '20' }), { page: 3, pageSize: 20 });
  assert.deepEqual(Optional.parse({ page: '2', pageSize: '100' }), { page: 2, pageSize: 100 });
  assert.equal(issue(Paged, { page: '1.5' }).path, 'page');
  assert.equal(issue(Paged, { pageSize: 'ten' }).path, 'pageSize');
});

test('a page size over the maximum is refused with the one message', () => {
  assert.deepEqual(issue(Paged, { pageSize: '51' }), { path: 'pageSize', code: 'too_big', message: 'Max page size is 50.' });
  assert.deepEqual(issue(Optional, { pageSize: '101' }), { path: 'pageSize', code: 'too_big', message: 'Max page size is 100.' });
  assert.deepEqual(Paged.parse({ pageSize: '50' }).pageSize, 50);
});

test('zero is refused, worded as each list publishes its lower bound', () => {
  assert.deepEqual(issue(Paged, { page: '0' }), { path: 'page', code: 'too_small', message: 'Too small: expected number to be >0' });
  assert.deepEqual(issue(Paged, { pageSize: '0' }), { path: 'pageSize', code: 'too_small', message: 'Too small: expected number to be >0' });
  assert.deepEqual(issue(Optional, { page: '0' }), { path: 'page', code: 'too_small', message: 'Too small: expected number to be >=1' });
  assert.deepEqual(issue(Optional, { pageSize: '0' }), { path: 'pageSize', code: 'too_small', message: 'Too small: expected number to be >=1' });
});

test('the documented schema is what the lists published before the fields were shared', () => {
  const doc = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' });
  const before = {
    positive: z.object({
      page: z.coerce.number().int().positive().default(1),
      pageSize: z.coerce.number().int().positive().max(50, 'Max page size is 50.').default(50),
    }),
    min1: z.object({
      page: z.coerce.number().int().min(1).optional(),
      pageSize: z.coerce.number().int().min(1).max(100, { error: 'Max page size is 100.' }).optional(),
    }),
  };
  assert.deepEqual(doc(Paged), doc(before.positive));
  assert.deepEqual(doc(Optional), doc(before.min1));
});

/**
 * The ClickHouse dialect: the placeholders it writes, the parameters it binds, and, run through
 * chdb, that hostile values arrive as plain values and each dialect function means what the
 * query builder expects.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ColumnParam } from '../column/dialect.js';
import { bindParams, clickHouseDialect as d } from './dialect.js';
import { openChdbExecutor } from './chdb-executor.js';
import type { ClickHouseExecutor } from './executor.js';

describe('ClickHouse dialect', () => {
  let ch: ClickHouseExecutor;
  before(async () => {
    ch = await openChdbExecutor();
  });
  after(() => ch.close());

  /** Evaluates one expression over bound parameters. */
  async function value(expr: string, params: ColumnParam[]): Promise<unknown> {
    const [row] = await ch.query(`SELECT ${expr} AS v`, bindParams(params));
    return row!.v;
  }

  test('placeholders are typed query parameters, numbered as the builder numbers them', () => {
    assert.equal(d.placeholder({ type: 'text', value: 'x' }, 1), '{p1:String}');
    assert.equal(d.placeholder({ type: 'int', value: 5 }, 12), '{p12:Int64}');
    assert.equal(d.placeholder({ type: 'texts', value: [] }, 3), '{p3:Array(String)}');
    assert.deepEqual(bindParams([{ type: 'text', value: 'US' }, { type: 'int', value: 7.9 }, { type: 'texts', value: ['a', 'b'] }]), { p1: 'US', p2: 7, p3: ['a', 'b'] });
    assert.equal(d.ident('key'), '"key"');
    assert.equal(d.ident('we"ird'), '"we""ird"');
  });

  test('hostile text reaches ClickHouse as a value, never as SQL', async () => {
    const hostile = ["it's", 'back\\slash', "x'); DROP TABLE t; --", '{p1:String}', 'line\nbreak\ttab', 'Ünïcödé ✓', '\u0000nul', ''];
    for (const s of hostile) {
      assert.equal(await value(d.placeholder({ type: 'text', value: s }, 1), [{ type: 'text', value: s }]), s, JSON.stringify(s));
    }
    const list = d.placeholder({ type: 'texts', value: hostile }, 1);
    assert.deepEqual(await value(list, [{ type: 'texts', value: hostile }]), hostile);
  });

  test('a list matches its members only, and an empty list matches nothing', async () => {
    const has = (needle: string, list: string[]) => value(d.inList(d.placeholder({ type: 'text', value: needle }, 1), d.placeholder({ type: 'texts', value: list }, 2)), [{ type: 'text', value: needle }, { type: 'texts', value: list }]);
    assert.equal(await has('b', ['a', 'b']), 1);
    assert.equal(await has('c', ['a', 'b']), 0);
    assert.equal(await has('', []), 0);
  });

  test('text functions: lower, starts with, contains ignoring case (LIKE characters are plain), concat', async () => {
    const t = (v: string, i: number) => ({ text: d.placeholder({ type: 'text', value: v }, i), param: { type: 'text', value: v } as ColumnParam });
    const two = async (fn: (a: string, b: string) => string, a: string, b: string) => {
      const x = t(a, 1);
      const y = t(b, 2);
      return value(fn(x.text, y.text), [x.param, y.param]);
    };
    assert.equal(await value(d.lower(t('ÄBC', 1).text), [t('ÄBC', 1).param]), 'äbc');
    assert.equal(await two(d.startsWith, 'https://a.test/x?y', 'https://a.test/x?'), 1);
    assert.equal(await two(d.startsWith, 'https://a.test/x', 'https://a.test/x?'), 0);
    assert.equal(await two(d.containsInsensitive, '{"Plan":"PRO"}', '"plan":"pro"'), 1);
    assert.equal(await two(d.containsInsensitive, 'abc', 'a%c'), 0);
    assert.equal(await two(d.containsInsensitive, 'a%c', 'A%C'), 1);
    assert.equal(await two(d.containsInsensitive, 'abc', 'a_c'), 0);
    assert.equal(await two((a, b) => d.concat(a, "'-'", b), 'US', 'CA'), 'US-CA');
  });

  test('slots start at multiples of their size', async () => {
    const at = (ms: number) => value(d.slot(d.placeholder({ type: 'int', value: ms }, 1), 900_000), [{ type: 'int', value: ms }]);
    assert.equal(Number(await at(1_700_000_123_456)), 1_700_000_100_000);
    assert.equal(Number(await at(900_000)), 900_000);
    assert.equal(Number(await at(899_999)), 0);
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clickHouseVersionProblem, MIN_CLICKHOUSE } from './server-version.js';
import { openClickHouseEngine } from './clickhouse-engine.js';
import type { ClickHouseExecutor } from './executor.js';

test('the version decision: 24.8 and newer run; older releases and unreadable answers are refused, naming the supported versions', () => {
  assert.deepEqual(MIN_CLICKHOUSE, [24, 8]);
  for (const ok of ['24.8.4.13', '24.10.1.2812', '25.3.2.39', '26.7.2.1', '100.0']) assert.equal(clickHouseVersionProblem(ok), undefined, ok);
  for (const old of ['24.3.12.75', '23.8.2.7', '22.3.1.1', '9.99.1']) {
    assert.match(clickHouseVersionProblem(old)!, new RegExp(`^ClickHouse ${old.replace(/\./g, '\\.')} is not supported: Waymark needs ClickHouse 24\\.8 \\(LTS\\) or newer`), old);
  }
  assert.match(clickHouseVersionProblem('unknown')!, /cannot read; it needs ClickHouse 24\.8 \(LTS\) or newer/);
  assert.match(clickHouseVersionProblem('')!, /cannot read/);
});

test('the engine asks the version first and refuses an old server before any statement of its schema', async () => {
  const statements: string[] = [];
  const old: ClickHouseExecutor = {
    async query(sql) {
      statements.push(sql);
      return /version\(\)/.test(sql) ? [{ version: '23.3.1.2823' }] : [];
    },
    async command(sql) {
      statements.push(sql);
    },
    async insert() {},
    async close() {},
  };
  await assert.rejects(openClickHouseEngine({ executor: old }), /ClickHouse 23\.3\.1\.2823 is not supported/);
  assert.deepEqual(statements, ['SELECT version() AS version']);
});

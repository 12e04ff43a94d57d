import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLineLogger, formatLogLine, logs } from './log-line.js';

test('logs follows LOG_LEVEL as pino does: the level and above, none when silent, info by default', () => {
  assert.equal(logs('info', 'info'), true);
  assert.equal(logs('info', 'debug'), false);
  assert.equal(logs('warn', 'info'), false);
  assert.equal(logs('warn', 'error'), true);
  assert.equal(logs('error', 'warn'), false);
  assert.equal(logs('fatal', 'error'), false);
  assert.equal(logs('silent', 'fatal'), false);
  assert.equal(logs(undefined, 'info'), true);
  assert.equal(logs(undefined, 'debug'), false);
  assert.equal(logs('trace', 'debug'), true);
});

test('a line is pino-shaped JSON: level number, time, msg, then the fields, one per line', () => {
  assert.equal(formatLogLine('warn', 'full disk', { dir: '/d' }, 1000), '{"level":40,"time":1000,"msg":"full disk","dir":"/d"}\n');
  const lines: string[] = [];
  const log = createLineLogger('warn', (l) => lines.push(l), { pid: 7 });
  log('info', 'not written');
  log('error', 'written', { code: 'E' });
  assert.equal(lines.length, 1);
  const parsed = JSON.parse(lines[0]!);
  assert.equal(parsed.level, 50);
  assert.equal(parsed.msg, 'written');
  assert.equal(parsed.pid, 7);
  assert.equal(parsed.code, 'E');
  assert.equal(typeof parsed.time, 'number');
});

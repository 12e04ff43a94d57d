/**
 * The redirect thread's side of the lag bound (click-writer.ts): while the click writer is past
 * CLICK_MAX_LAG_MS, the answer of a new click waits for it; a bot or a repeat visit, which records
 * nothing, is answered at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-support/harness.js';
import { holdWriteLock } from '../test-support/server-process.js';
import { hit, insertLink } from './testing.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('past the lag bound a new click waits for the writer; bots and repeat visits are answered at once', async () => {
  const t = await createTestApp({ env: { VISITOR_IP: 'full', TRUST_PROXY: 'true', CLICK_MAX_LAG_MS: '50', CLICK_MAX_HOLD_MS: '60000' },
    // The log's own thread, as in production: its synchronous wait on the held lock must not hold this thread.
    eventLogThread: true,
  });
  const base = await t.listen();
  const l = await insertLink(t.database.db, t.workspaceId, { domain: 'go.test', key: 'held', url: 'https://example.com/held' });
  const visit = (ip: string, ua = CHROME) => hit(base, '/held', { host: 'go.test', headers: { 'user-agent': ua, 'x-forwarded-for': ip } });
  const writer = () => t.modules.redirect.stats().writer;
  let lock: Awaited<ReturnType<typeof holdWriteLock>> | undefined;
  try {
    assert.equal((await visit('198.51.100.1')).status, 302);
    await t.modules.redirect.flushClicks(); // the writer runs and has caught up

    const url = new URL(t.database.url);
    lock = await holdWriteLock(url.toString(), t.database.pgSchema);
    assert.equal((await visit('198.51.100.2')).status, 302, 'under the bound: answered at once');
    while (!writer().holding) await sleep(5); // its click cannot be committed: the writer falls behind

    let answered = false;
    const held = visit('198.51.100.3').then((res) => ((answered = true), res));
    const bot = await visit('198.51.100.4', GOOGLEBOT);
    assert.equal(bot.status, 302, 'a bot is answered while the writer is behind');
    const repeat = await visit('198.51.100.2');
    assert.equal(repeat.status, 302, 'a repeat visit (no new click) is answered too');
    // Its request has reached the server (and been held) or been answered.
    while (writer().held < 1 && !answered) await sleep(5);
    assert.equal(answered, false, 'the new click waits');

    await lock.release();
    lock = undefined;
    assert.equal((await held).status, 302, 'and is answered once the writer has caught up');
    await t.modules.redirect.flushClicks();
    const ips = await t.database.db.selectFrom('events').select('ip').where('link_id', '=', l.id!).orderBy('ip').execute();
    assert.deepEqual(
      ips.map((r) => r.ip),
      ['198.51.100.1', '198.51.100.2', '198.51.100.3'],
    );
    assert.equal(writer().held, 1);
    assert.equal(writer().heldTooLong, 0);
  } finally {
    await lock?.release();
    await t.close();
  }
});

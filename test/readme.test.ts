/**
 * The README's quick start, run from the README's own text: the blocks marked
 * `<!-- readme-test: shell -->` and `<!-- readme-test: sdk -->` are extracted and run against a
 * server started as `npm start` starts it (default settings: SQLite file, DuckDB event log, no
 * WAYMARK_API_KEY). Only what a test must change is changed: the port (3000 → a free one), the
 * database file (DATABASE_URL, where the README relies on ./data of its folder), and `npx waymark`
 * runs the same CLI from the tree the tests run from (test-support/entry.ts). Their output is
 * compared with the README's `# →` lines and comments.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { entryArgs } from '../src/test-support/entry.js';
import { freePort } from '../src/test-support/processes.js';
import { isPostgresUrl } from '../src/db/open.js';

const readme = readFileSync(resolve('README.md'), 'utf8');

/** The code of the block marked `<!-- readme-test: <name> -->`. */
function markedBlock(name: string): string {
  const match = new RegExp(`<!-- readme-test: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``).exec(readme);
  assert.ok(match, `README.md has a block marked readme-test: ${name}`);
  return match[1]!;
}

const skip = isPostgresUrl(process.env.DATABASE_URL ?? '') ? 'the quick start runs on the default (SQLite) installation: the SQLite leg' : false;

test('the README\'s quick start runs as printed against a started server', { skip, timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waymark-readme-'));
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), DATABASE_URL: `file:${join(dir, 'waymark.db')}`, WAYMARK_API_KEY: '', LOG_LEVEL: 'warn', EVENTS_URL: '' };
  delete (env as Record<string, string | undefined>).EVENTS_URL;
  const server = spawn(process.execPath, entryArgs('src/main.ts'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.on('data', (d) => (output += d));
  server.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((r) => server.on('exit', (code) => r(code)));
  const sdkFolder = resolve('.test-build', `readme-sdk-${port}`);
  try {
    const deadline = Date.now() + 90_000;
    while (!output.includes('Try it')) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const local = (code: string) => code.replaceAll(':3000', `:${port}`);
    const cli = [process.execPath, ...entryArgs('src/cli/index.ts')].map((a) => `'${a}'`).join(' ');

    // The shell block: a key, a link, a browser's click, the click read back.
    const shell = markedBlock('shell');
    const run = (code: string) => spawnSync('bash', ['-c', local(code).replaceAll('npx waymark', cli)], { env, encoding: 'utf8' });
    const ran = run(shell);
    assert.equal(ran.status, 0, ran.stderr);
    const out = ran.stdout;
    assert.match(out, new RegExp(`"shortLink":"http://wm\\.localhost:${port}/spring-sale"`));
    assert.match(out, /^HTTP\/1\.1 302 Found/m);
    assert.match(out, /^location: https:\/\/example\.com\/pricing/im);
    // The analytics answer is the README's `# →` line, exactly. The block waits a second for the
    // click to be stored; on a loaded machine the same command is asked again for a while.
    const expected = JSON.parse(/curl -s[^"\n]*"http:\/\/localhost:3000\/analytics[^\n]*\n# → (.+)/.exec(shell)![1]!);
    let analytics = JSON.parse(out.trim().split('\n').at(-1)!);
    const analyticsCall = /^(export KEY=.*)$/m.exec(shell)![1]! + '\n' + /^(curl -s[^"\n]*"http:\/\/localhost:3000\/analytics.*)$/m.exec(shell)![1]!;
    for (const until = Date.now() + 30_000; analytics.clicks < expected.clicks && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 500));
      analytics = JSON.parse(run(analyticsCall).stdout.trim());
    }
    assert.deepEqual(analytics, expected);

    // The SDK block, saved as quickstart.mjs and run with node, twice (the tag exists the second time).
    mkdirSync(sdkFolder, { recursive: true });
    writeFileSync(join(sdkFolder, 'quickstart.mjs'), local(markedBlock('sdk')));
    const key = /^API key \(shown once\): (wm_\w+)$/m.exec(spawnSync('bash', ['-c', `${cli} keys create --workspace default --name sdk`], { env, encoding: 'utf8' }).stdout)![1]!;
    for (let i = 0; i < 2; i++) {
      const sdk = spawnSync(process.execPath, [join(sdkFolder, 'quickstart.mjs')], { env: { ...env, KEY: key }, encoding: 'utf8' });
      assert.equal(sdk.status, 0, sdk.stderr);
      const [shortLink, clicks] = sdk.stdout.trim().split('\n');
      assert.match(shortLink!, new RegExp(`^http://wm\\.localhost:${port}/\\w{7}$`));
      assert.equal(clicks, /console\.log\(counts\); \/\/ (\{[^}]*\})/.exec(markedBlock('sdk'))![1], 'what the README says it prints');
    }
  } finally {
    if (server.exitCode === null) server.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    rmSync(sdkFolder, { recursive: true, force: true });
  }
});

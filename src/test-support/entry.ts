/**
 * The node arguments that run one of the project's entry points in a child process: from the
 * transpiled tree when the tests themselves run from it (`npm test`: scripts/build-tests.mjs),
 * else from source through tsx (`TEST_TSX=1`, or a test run by hand with `node --import tsx`).
 * A server started under tsx paid ~8 s of CPU compiling and loading the app, 44 of them in one
 * SQLite pass; from the transpiled tree, its start is the app's own (~1.5 s).
 *
 * @example
 * spawn(process.execPath, entryArgs('src/main.ts'), { env });
 * spawn(process.execPath, [...entryArgs('src/cli/index.ts'), 'import', 'api', '--from', url], { env });
 */
import { join } from 'node:path';

/** Set when this module runs from the transpiled tree, e.g. `.test-build/src/test-support/entry.js`. */
const builtRoot = /\/(\.test-build)\/src\/test-support\/entry\.js$/.exec(new URL(import.meta.url).pathname)?.[1];

export function entryArgs(entry: string): string[] {
  return builtRoot ? ['--enable-source-maps', join(builtRoot, entry.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', entry];
}

/**
 * The release this code is: package.json's `version`, the one number `waymark --version`,
 * `GET /health` and the OpenAPI document's `info.version` show (CHANGELOG.md lists them).
 * Read once from the package.json above this file, so it holds from `src/` (tsx), `dist/` and the
 * transpiled test tree alike.
 *
 * @example
 * import { VERSION } from './version.js'; // '0.1.0'
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Walks up from `dir` to the first package.json named `waymark` and returns its version. */
export function findVersion(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    const file = join(at, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'waymark' && pkg.version) return pkg.version;
    }
    if (dirname(at) === at) throw new Error(`no package.json of waymark above ${dir}`);
  }
}

export const VERSION = findVersion(dirname(fileURLToPath(import.meta.url)));

// Which test files can reach the database: esbuild follows each file's imports (static and
// literal dynamic ones, npm packages left out) and a file reaches the database when its graph
// holds src/db/open.ts (the only module that opens one), the test-support module that starts
// server processes on DATABASE_URL, or when it names DATABASE_URL itself. The PostgreSQL pass
// runs only those: the others would run the same code a second time.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const MARKERS = ['src/db/open.ts', 'src/test-support/processes.ts'];

/** The subset of `files` (paths from the repository's root) whose code can reach the database. */
export async function filesReachingTheDatabase(files) {
  const result = await build({
    entryPoints: files,
    bundle: true,
    splitting: true,
    write: false,
    metafile: true,
    outdir: '.database-reach',
    format: 'esm',
    platform: 'node',
    packages: 'external',
    tsconfig: 'tsconfig.json',
    supported: { 'import-attributes': true },
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const outputOf = new Map(Object.entries(outputs).filter(([, o]) => o.entryPoint).map(([path, o]) => [o.entryPoint, path]));
  return files.filter((file) => {
    if (/DATABASE_URL/.test(readFileSync(file, 'utf8'))) return true;
    const seen = new Set();
    const stack = [outputOf.get(file)];
    while (stack.length) {
      const path = stack.pop();
      if (!path || seen.has(path)) continue;
      seen.add(path);
      if (MARKERS.some((m) => m in outputs[path].inputs)) return true;
      for (const i of outputs[path].imports) if (!i.external) stack.push(i.path);
    }
    return false;
  });
}

/**
 * CLI commands that belong to other concepts (domains). Kept apart so index.ts stays about
 * workspaces and keys.
 */
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';

export const EXTRA_USAGE = '';

export async function runExtraCommand(_input: {
  config: Config;
  database: OpenDatabase;
  group: string;
  action?: string;
  arg?: string;
  out: (line: string) => void;
}): Promise<number | undefined> {
  return undefined;
}

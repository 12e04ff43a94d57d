/**
 * CLI commands that belong to other concepts (domains). Kept apart so index.ts stays about
 * workspaces and keys.
 */
import { CLI } from '../audit/record.js';
import type { Config } from '../config.js';
import type { OpenDatabase } from '../db/open.js';
import { createDomainVerifier } from '../domains/module.js';
import type { DnsResolver } from '../domains/verification.js';

export const EXTRA_USAGE = `  domains verify <slug> [--force]
        dns mode: look up the domain's records now and store the result; --force marks it verified
`;

export async function runExtraCommand(input: {
  config: Config;
  database: OpenDatabase;
  group: string;
  action?: string;
  arg?: string;
  force?: boolean;
  out: (line: string) => void;
  resolver?: DnsResolver;
}): Promise<number | undefined> {
  if (input.group === 'domains' && input.action === 'verify') {
    if (!input.arg) throw new Error('the domain to verify is required: waymark domains verify <slug>');
    const verify = createDomainVerifier({ config: input.config, database: input.database, resolver: input.resolver });
    const result = await verify(input.arg, { force: input.force }, CLI);
    input.out(`${result.slug}: ${result.verified ? 'verified' : 'not verified'} (${result.reason})`);
    return result.verified ? 0 : 2;
  }
  return undefined;
}

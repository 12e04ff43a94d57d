/**
 * What `main.ts` prints once it listens (to stderr: stdout carries only the JSON log): where the
 * API, its reference and the short links are, the database, the default workspace and how to call
 * it. Logs are kept and shipped, so a key set through `WAYMARK_API_KEY` is only ever shown masked,
 * and the "try it" command reads it from that variable (a masked key pasted would answer 401); a
 * key created on this start is printed in full once, in the command too (only its hash is stored,
 * so this is the one way to learn it).
 *
 * @example
 * console.log(startBanner({ config, engine: 'PostgreSQL', workspace, createdKey, setupToken }));
 * maskKey('wm_0123456789abcdefghijklmn'); // 'wm_012…klmn'
 */
import type { Config } from './config.js';

export interface BannerInput {
  config: Pick<Config, 'baseUrl' | 'shortLinkProtocol' | 'shortDomain' | 'apiKey'>;
  /** The database, as shown: `PostgreSQL` or `SQLite (<path>)`. */
  engine: string;
  workspace: { id: string; slug: string };
  /** A key made on this start (first start of an empty database). */
  createdKey?: string;
  /** While no dashboard user exists: the one-time token of the setup address (users/service.ts). */
  setupToken?: string;
}

/** The first 6 and last 4 characters of a key (`wm_` and 3 more, …, 4); a short key keeps only `wm_`. */
export function maskKey(key: string): string {
  // At least 8 characters stay hidden.
  if (key.length < 18) return `${key.slice(0, 3)}…`;
  return `${key.slice(0, 6)}…${key.slice(-4)}`;
}

export function startBanner({ config, engine, workspace, createdKey, setupToken }: BannerInput): string {
  const lines = [
    '',
    `Waymark is running.`,
    `  API:            ${config.baseUrl}`,
    `  API reference:  ${config.baseUrl}/docs  (OpenAPI: ${config.baseUrl}/openapi.json)`,
    `  Dashboard:      ${config.baseUrl}/dashboard`,
    `  Short links:    ${config.shortLinkProtocol}://${config.shortDomain}/<key>`,
    `  Database:       ${engine}`,
    `  Workspace:      ${workspace.id} (${workspace.slug})`,
  ];
  if (createdKey) {
    lines.push(`  API key:        ${createdKey}`, `                  (shown once; only its hash is stored. Create more with: npx waymark keys create)`);
  } else if (config.apiKey) {
    lines.push(`  API key:        ${maskKey(config.apiKey)}  (the value of WAYMARK_API_KEY)`);
  } else {
    lines.push(`  API key:        printed on first start; create another with: npx waymark keys create`);
  }
  if (setupToken) {
    lines.push(
      '',
      'No dashboard user exists yet. Create the first owner at this address (it works once, for 24 hours; each start replaces it):',
      `  ${config.baseUrl}/setup?token=${setupToken}`,
    );
  }
  const call = (key: string) => `  curl -H "Authorization: Bearer ${key}" ${config.baseUrl}/workspaces/${workspace.id}`;
  if (createdKey) lines.push('', 'Try it:', call(createdKey), '');
  else if (config.apiKey) {
    lines.push(
      '',
      'Try it (the key is the value of WAYMARK_API_KEY this server was started with; set it in your shell first):',
      '  export WAYMARK_API_KEY=wm_…   # the value you gave the server',
      call('$WAYMARK_API_KEY'),
      '',
    );
  } else lines.push('', 'Try it (with a key of this workspace: npx waymark keys create --workspace default):', call('<key>'), '');
  return lines.join('\n');
}

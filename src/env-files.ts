/**
 * The environment as the process sees it at start: the real environment, secrets read from files
 * (`<NAME>_FILE`, as container platforms mount them) and a `.env` file in the working directory.
 * Precedence, per setting: the real environment, then `<NAME>_FILE`, then `.env` (which may itself
 * hold a `<NAME>_FILE`). A setting given both as `<NAME>` and as `<NAME>_FILE` in the real
 * environment is refused: which one was meant cannot be told.
 *
 * @example
 * const config = loadConfig(readEnvironment(process.env));
 * // WAYMARK_API_KEY_FILE=/run/secrets/api_key → config.apiKey is that file's first line
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ConfigError } from './config.js';

/** Settings that carry a password, a key or a token: each is also read from `<NAME>_FILE`. */
export const SECRET_SETTINGS = [
  'WAYMARK_API_KEY',
  'DATABASE_URL',
  'EVENTS_URL',
  'OIDC_CLIENT_SECRET',
  'SMTP_URL',
  'METRICS_TOKEN',
] as const;

export interface EnvironmentOptions {
  /** The `.env` file; read when it exists. Default `.env` in the working directory. */
  dotenvPath?: string;
  /** Reads a file as UTF-8; throws ENOENT for a missing one (tests replace it). */
  readFile?: (path: string) => string;
}

type Env = Record<string, string | undefined>;

export function readEnvironment(env: Env = process.env, options: EnvironmentOptions = {}): Env {
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
  const dotenv = readDotenv(options.dotenvPath ?? '.env', readFile);
  const given = (e: Env, name: string) => e[name] !== undefined && e[name] !== '';
  const result: Env = { ...dotenv, ...env };
  for (const name of SECRET_SETTINGS) {
    const fileName = `${name}_FILE`;
    if (given(env, name)) {
      if (given(env, fileName)) throw new ConfigError(`Invalid value for ${fileName}: ${name} is set too; set one of them`);
      continue;
    }
    const path = given(env, fileName) ? env[fileName]! : given(dotenv, fileName) ? dotenv[fileName]! : undefined;
    if (path === undefined) continue;
    result[name] = readSecret(fileName, path, readFile);
  }
  for (const name of SECRET_SETTINGS) delete result[`${name}_FILE`];
  return result;
}

/** The file's text without the line break(s) an editor or `echo` leaves at its end. */
function readSecret(fileName: string, path: string, readFile: (path: string) => string): string {
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    throw new ConfigError(`Invalid value for ${fileName}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const value = text.replace(/[\r\n]+$/, '');
  if (value === '') throw new ConfigError(`Invalid value for ${fileName}: ${path} is empty`);
  if (/[\r\n]/.test(value)) throw new ConfigError(`Invalid value for ${fileName}: ${path} holds more than one line`);
  return value;
}

function readDotenv(path: string, readFile: (path: string) => string): Env {
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`Cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return parseEnv(text);
}

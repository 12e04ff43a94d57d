/**
 * Seals the providers' signing secrets before they reach the database: AES-256-GCM with a random
 * 96-bit nonce, the workspace and provider as associated data (a sealed secret copied onto another
 * workspace's row does not open). The key is SECRETS_KEY (32 bytes, base64 or hex), else a key
 * file created on first use with mode 0600 (SECRETS_KEY_PATH, default `data/secrets.key`), so a
 * database dump alone reveals no secret.
 *
 * @example
 * const box = createSecretBox({ key: randomBytes(32) });
 * const sealed = box.seal('whsec_…', 'ws_1/stripe');
 * box.open(sealed, 'ws_1/stripe'); // 'whsec_…'
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const VERSION = 'v1';

export interface SecretBox {
  seal(secret: string, context: string): string;
  /** The secret, or undefined when the text was sealed with another key or context. */
  open(sealed: string, context: string): string | undefined;
}

/** Reads a 32-byte key written as base64 or hex; undefined for anything else. */
export function parseKey(text: string): Buffer | undefined {
  const t = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

/** The key of SECRETS_KEY, else of the key file, created with a new random key when missing. */
export function loadOrCreateKey(options: { key?: string; file: string }): Buffer {
  if (options.key) {
    const key = parseKey(options.key);
    if (!key) throw new Error('SECRETS_KEY must be 32 bytes written as base64 or 64 hex digits');
    return key;
  }
  try {
    const key = parseKey(readFileSync(options.file, 'utf8'));
    if (!key) throw new Error(`${options.file} does not hold a 32-byte key (base64 or hex)`);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(32);
  mkdirSync(dirname(options.file), { recursive: true });
  // `wx`: two processes starting at once cannot both write a key; the loser reads the winner's.
  try {
    writeFileSync(options.file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return loadOrCreateKey(options);
  }
}

/** A box over a key, or over a loader called on first use (no key file for installs without integrations). */
export function createSecretBox(source: { key: Buffer } | { load: () => Buffer }): SecretBox {
  let key = 'key' in source ? source.key : undefined;
  const getKey = () => (key ??= (source as { load: () => Buffer }).load());
  return {
    seal(secret, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', getKey(), iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
    },
    open(sealed, context) {
      const [version, iv, tag, body] = sealed.split(':');
      if (version !== VERSION || !iv || !tag || body === undefined) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', getKey(), Buffer.from(iv, 'base64'));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(Buffer.from(tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

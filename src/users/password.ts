/**
 * Password hashing with `crypto.scrypt` (no native build) and a random salt per password. The
 * stored form names its parameters, `scrypt$N$r$p$<salt b64url>$<hash b64url>`, so they can be
 * raised later without breaking existing hashes.
 *
 * `verifyPassword` runs scrypt whatever it is given: for an unknown account it derives against a
 * fixed dummy hash, so a login answers in the same time whether or not the address exists.
 *
 * @example
 * const stored = await hashPassword('correct horse battery staple');
 * await verifyPassword(stored, 'correct horse battery staple'); // true
 * await verifyPassword(null, 'anything');                        // false, after the same work
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
/** N = 2^15, r = 8: about 32 MB and a few tens of milliseconds per derivation. */
const DEFAULT = { N: 32768, r: 8, p: 1 } as const;

export const MIN_PASSWORD_LENGTH = 10;

/**
 * The stored "hash" of an account made by single sign-on: not of the scrypt form, so no password
 * matches it (`verifyPassword` answers false after the same work); `npx waymark users
 * reset-password` or a password reset gives the account a real one.
 */
export const NO_PASSWORD = 'none';
export const MAX_PASSWORD_LENGTH = 256;

/** How a member signs in (password-access.ts): their own password, single sign-on only, or a password an owner allowed. */
export type PasswordAccess = 'password' | 'sso_only' | 'allowed';

/** The account's state (pure). */
export function passwordAccessOf(user: { password_hash: string; password_allowed_at: number | null }): PasswordAccess {
  if (user.password_allowed_at !== null) return 'allowed';
  return user.password_hash === NO_PASSWORD ? 'sso_only' : 'password';
}

/** Whether "Forgot password?" may give the account a (new) password (pure): not to an SSO account no owner allowed one. */
export function mayGetPasswordByReset(user: { password_hash: string; password_allowed_at: number | null }): boolean {
  return passwordAccessOf(user) !== 'sso_only';
}

/** How many derivations this process has run (tests assert the unknown-account path runs one). */
export const scryptRuns = { count: 0 };

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  scryptRuns.count++;
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, DEFAULT);
  return `scrypt$${DEFAULT.N}$${DEFAULT.r}$${DEFAULT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

// Stands in for an account that does not exist; no password matches it (its key is random).
const DUMMY = `scrypt$${DEFAULT.N}$${DEFAULT.r}$${DEFAULT.p}$${randomBytes(16).toString('base64url')}$${randomBytes(KEY_LENGTH).toString('base64url')}`;

/** True when `password` matches `stored`; with `stored` null, false after the same work. */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  const parts = (stored ?? DUMMY).split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt') {
    await derive(password, randomBytes(16), DEFAULT);
    return false;
  }
  const expected = Buffer.from(hash!, 'base64url');
  const key = await derive(password, Buffer.from(salt!, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return stored !== null && key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * Known browsers of an account, for the login limits (dashboard/login-limit.ts): a browser that
 * logged in to an account gets a device token, which lets its later attempts skip the limit that
 * failures from everywhere else share, so an attacker's failures cannot lock the owner out.
 *
 * The token is the account's own: `<issued, base 36 seconds>_<random id>_<HMAC>`, the HMAC keyed
 * by the account's password hash. So no table holds tokens, every process on the database accepts
 * them, and a new password voids every earlier one. A token older than `DEVICE_MAX_AGE_MS` is void.
 *
 * @example
 * const token = deviceToken(user, Date.now());          // the `wm_device` cookie
 * knownDevice(token, user, Date.now());                 // '6f1c…' (its id) | null
 */
import { createHmac, randomBytes } from 'node:crypto';
import { sameSecret } from './tokens.js';

/** How long a browser stays known after a login: 180 days. */
export const DEVICE_MAX_AGE_MS = 180 * 24 * 60 * 60 * 1000;

interface Account {
  id: string;
  password_hash: string;
}

function mac(account: Account, issued: string, id: string): string {
  return createHmac('sha256', account.password_hash).update(`waymark-device\0${account.id}\0${issued}\0${id}`).digest('hex').slice(0, 32);
}

/** A new device token of the account. */
export function deviceToken(account: Account, now: number): string {
  const issued = Math.floor(now / 1000).toString(36);
  const id = randomBytes(12).toString('hex');
  return `${issued}_${id}_${mac(account, issued, id)}`;
}

/** The token's id when it is one of this account's, unexpired; otherwise null. */
export function knownDevice(token: string | undefined, account: Account | undefined, now: number): string | null {
  if (!token || !account) return null;
  const parts = /^([0-9a-z]{1,10})_([0-9a-f]{24})_([0-9a-f]{32})$/.exec(token);
  if (!parts) return null;
  const [, issued, id, sent] = parts as unknown as [string, string, string, string];
  const age = now - parseInt(issued, 36) * 1000;
  if (age < -60_000 || age > DEVICE_MAX_AGE_MS) return null;
  return sameSecret(sent, mac(account, issued, id)) ? id : null;
}

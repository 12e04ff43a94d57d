/**
 * API keys: generation, hashing and scopes. A key is `wm_` + 24 random characters; only its
 * SHA-256 hex is stored (behaviour.md §4), so a database leak does not leak usable keys.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { KEY_ALPHABET } from '../ids.js';

export const API_KEY_PREFIX = 'wm_';

/** A new random API key. */
export function generateApiKey(): string {
  const bytes = randomBytes(24);
  let out = '';
  // 62 does not divide 256; the bias of `% 62` is below 2^-2 per char on 4 of 256 values and
  // does not matter for a 24-character key (~142 bits).
  for (const b of bytes) out += KEY_ALPHABET[b % 62];
  return API_KEY_PREFIX + out;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** `wm_…abcd`: enough to recognise a key in a list, too little to use it. */
export function partialKey(key: string): string {
  return `${key.slice(0, 3)}…${key.slice(-4)}`;
}

/** Constant-time comparison of two secrets of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export const RESOURCES = ['links', 'domains', 'tags', 'folders', 'analytics', 'workspaces', 'webhooks'] as const;
export type Resource = (typeof RESOURCES)[number];
export type Permission = `${Resource}.read` | `${Resource}.write`;

/** Scopes a key may carry: per resource, or `apis.all` / `apis.read` for all resources. */
export const SCOPES = [
  ...RESOURCES.flatMap((r) => (r === 'analytics' ? [`${r}.read`] : [`${r}.read`, `${r}.write`])),
  'apis.all',
  'apis.read',
] as readonly string[];

/**
 * The permissions granted by a key's scopes. `null` (no scopes stored) means full access;
 * `x.write` implies `x.read`; `apis.read` grants every read.
 */
export function permissionsFor(scopes: readonly string[] | null): Set<Permission> | 'all' {
  if (scopes === null) return 'all';
  const out = new Set<Permission>();
  for (const scope of scopes) {
    if (scope === 'apis.all') return 'all';
    if (scope === 'apis.read') {
      for (const r of RESOURCES) out.add(`${r}.read`);
      continue;
    }
    const [resource, level] = scope.split('.') as [Resource, 'read' | 'write'];
    if (!RESOURCES.includes(resource)) continue;
    out.add(`${resource}.read`);
    if (level === 'write') out.add(`${resource}.write`);
  }
  return out;
}

/** Parses and validates a space- or comma-separated scope list; throws on an unknown scope. */
export function parseScopes(input: string | undefined | null): string[] | null {
  if (!input) return null;
  const scopes = input.split(/[\s,]+/).filter(Boolean);
  for (const s of scopes) {
    if (!SCOPES.includes(s)) throw new Error(`Unknown scope "${s}". Known scopes: ${SCOPES.join(', ')}`);
  }
  return scopes;
}

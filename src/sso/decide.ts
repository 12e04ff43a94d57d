/**
 * The decisions of a single sign-on, pure and unit-tested without a server (decide.test.ts):
 * which user an identity is (`decideSignIn`), which memberships a role claim asks for
 * (`rolesFromClaim`), and what changes that makes to the current ones (`planMemberships`).
 *
 * @example
 * decideSignIn({ email: 'ann@example.com', emailVerified: true, … }, { linkedUserId: null, userByEmail: ann }, { allowedDomains: ['example.com'] });
 * // { kind: 'link', userId: ann.id }
 * rolesFromClaim(['waymark:acme:owner', 'staff']); // Map { 'acme' => 'owner' }
 */
import { isRole, ROLES, type Role } from '../users/roles.js';

/** What the provider says of the person: its validated ID token, with userinfo's claims where the token lacks them (provider.ts). */
export interface Identity {
  issuer: string;
  subject: string;
  email: string | null;
  /** The provider verified the address (`identityOf`: `email_verified`, or Entra ID's `xms_edov`). */
  emailVerified: boolean;
  name: string | null;
}

export type SignInDecision =
  /** The identity is linked to this user already. */
  | { kind: 'known'; userId: string }
  /** A user with the same, verified, email address exists: link the identity to them. */
  | { kind: 'link'; userId: string }
  /** No such user: create one (just in time). */
  | { kind: 'create'; email: string; name: string }
  | { kind: 'refuse'; reason: 'no_email' | 'domain' | 'unverified'; message: string };

/** The email's domain, lower-cased ('' without an @). */
/**
 * The person an ID token names. The address counts as verified when the provider says
 * `email_verified: true`; Microsoft Entra ID never sends that claim, and its optional claim
 * `xms_edov` ("email domain owner verified", added in the app registration's token configuration)
 * stands in for it only when `email_verified` is absent.
 */
export function identityOf(claims: { iss: string; sub: string } & Record<string, unknown>): Identity {
  const emailVerified = claims.email_verified === undefined ? claims.xms_edov === true : claims.email_verified === true;
  return {
    issuer: claims.iss,
    subject: claims.sub,
    email: typeof claims.email === 'string' ? claims.email : null,
    emailVerified,
    name: typeof claims.name === 'string' ? claims.name : null,
  };
}

export const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/**
 * Who signs in. Every SSO sign-in needs an email address of an allowed domain (checked again at
 * each sign-in: a person moved to another domain is refused); a known identity is its user; an
 * unknown one is linked to the user with the same address only when the provider says the
 * address is verified (else anyone able to set that address at the provider would take the
 * account); otherwise the account is created.
 */
export function decideSignIn(identity: Identity, found: { linkedUserId: string | null; userByEmail: { id: string } | null }, settings: { allowedDomains: readonly string[] }): SignInDecision {
  const email = identity.email?.trim() ?? '';
  if (!email.includes('@')) return { kind: 'refuse', reason: 'no_email', message: 'Your identity provider did not share an email address, which Waymark needs: ask your administrator to release the `email` scope.' };
  if (!settings.allowedDomains.includes(domainOf(email))) {
    return { kind: 'refuse', reason: 'domain', message: `Accounts of ${domainOf(email)} may not sign in to this Waymark. Ask an owner to invite you, or sign in with your company's account.` };
  }
  if (found.linkedUserId) return { kind: 'known', userId: found.linkedUserId };
  if (found.userByEmail) {
    if (!identity.emailVerified) {
      return { kind: 'refuse', reason: 'unverified', message: 'An account with this email address exists, and your identity provider has not verified the address, so it cannot be linked. Log in with your password.' };
    }
    return { kind: 'link', userId: found.userByEmail.id };
  }
  return { kind: 'create', email, name: (identity.name?.trim() || email.slice(0, email.indexOf('@'))).slice(0, 100) };
}

const ROLE_VALUE = /^waymark:([a-z0-9][a-z0-9_-]*):([a-z]+)$/i;

/**
 * The memberships a role claim asks for: values `waymark:<workspace slug>:<role>` (a list, or one
 * string of values separated by spaces or commas); other values are ignored, the highest role
 * wins for a slug named twice. Null when no value has that form: the claim then says nothing
 * about Waymark, and memberships stay as they are.
 */
export function rolesFromClaim(value: unknown): Map<string, Role> | null {
  const values = typeof value === 'string' ? value.split(/[\s,]+/) : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  const roles = new Map<string, Role>();
  for (const v of values) {
    const m = ROLE_VALUE.exec(v.trim());
    const role = m?.[2]!.toLowerCase();
    if (!m || !isRole(role)) continue;
    const slug = m[1]!.toLowerCase();
    const held = roles.get(slug);
    if (!held || ROLES.indexOf(role) < ROLES.indexOf(held)) roles.set(slug, role);
  }
  return roles.size > 0 ? roles : null;
}

/** One membership change: `to` null removes it, `from` null adds it. */
export interface MembershipChange {
  workspaceId: string;
  from: Role | null;
  to: Role | null;
}

/**
 * The changes that make `current` (workspace id → role) what the claim `wanted` says: the claim
 * is the whole truth, so memberships it does not name are removed.
 */
export function planMemberships(current: ReadonlyMap<string, Role>, wanted: ReadonlyMap<string, Role>): MembershipChange[] {
  const changes: MembershipChange[] = [];
  for (const [workspaceId, to] of wanted) {
    const from = current.get(workspaceId) ?? null;
    if (from !== to) changes.push({ workspaceId, from, to });
  }
  for (const [workspaceId, from] of current) if (!wanted.has(workspaceId)) changes.push({ workspaceId, from, to: null });
  return changes;
}

/**
 * What each workspace role may do in the dashboard. One pure function, `can`, is asked by every
 * dashboard route before it calls a service; pages only hide what `can` would refuse anyway.
 *
 * - viewer: reads everything, changes nothing;
 * - member: also manages links, tags, folders and customers;
 * - owner: also manages members, API keys and the workspace's settings, and reads the audit log.
 *
 * @example
 * can('member', 'links.write');   // true
 * can('member', 'members.manage'); // false
 */
export const ROLES = ['owner', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const ACTIONS = [
  'workspace.read',
  'links.write',
  'tags.write',
  'folders.write',
  'customers.write',
  'members.manage',
  'keys.manage',
  'settings.manage',
  'audit.read',
] as const;
export type Action = (typeof ACTIONS)[number];

const MEMBER_ACTIONS: ReadonlySet<Action> = new Set(['workspace.read', 'links.write', 'tags.write', 'folders.write', 'customers.write']);

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function can(role: Role, action: Action): boolean {
  switch (role) {
    case 'owner':
      return true;
    case 'member':
      return MEMBER_ACTIONS.has(action);
    case 'viewer':
      return action === 'workspace.read';
    default:
      return false;
  }
}

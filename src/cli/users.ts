/**
 * `waymark users …`: dashboard accounts from the command line (src/users/). Passwords are never
 * taken as arguments (they would land in shell history and `ps`): a random one is generated and
 * printed once, unless WAYMARK_USER_PASSWORD holds the one to set (for scripts).
 *
 * @example
 * npx waymark users create --email ann@example.com --name Ann --workspace default --role owner
 * npx waymark users reset-password ann@example.com
 * npx waymark users add-membership ann@example.com --workspace acme --role viewer
 * npx waymark users list
 */
import { randomBytes } from 'node:crypto';
import type { OpenDatabase } from '../db/open.js';
import { CLI } from '../audit/record.js';
import { createUsersModule } from '../users/module.js';
import { isRole, ROLES, type Role } from '../users/roles.js';
import type { WorkspaceRow } from '../workspaces/store.js';

export const USERS_USAGE = `  users list
  users create --email <email> --name <name> [--workspace <id|slug> --role <${ROLES.join('|')}>]
  users reset-password <email>          (ends the user's sessions)
  users add-membership <email> --workspace <id|slug> --role <${ROLES.join('|')}>
        a new password is generated and printed once, unless WAYMARK_USER_PASSWORD sets it
`;

export interface UsersCommand {
  database: OpenDatabase;
  action?: string;
  arg?: string;
  values: { email?: string; name?: string; role?: string; workspace?: string };
  env: Record<string, string | undefined>;
  resolveWorkspace: () => Promise<WorkspaceRow>;
  out: (line: string) => void;
}

function roleOf(value: string | undefined): Role {
  if (!isRole(value)) throw new Error(`--role must be one of: ${ROLES.join(', ')}`);
  return value;
}

export async function runUsersCommand({ database, action, arg, values, env, resolveWorkspace, out }: UsersCommand): Promise<number> {
  const users = createUsersModule({ database, now: Date.now });
  const password = () => {
    const given = env.WAYMARK_USER_PASSWORD;
    return given ? { value: given, generated: false } : { value: randomBytes(15).toString('base64url'), generated: true };
  };
  const findUser = async (email: string | undefined) => {
    if (!email) throw new Error('the email address is required');
    const user = await users.service.findByEmail(email);
    if (!user) throw new Error(`no user with the email address ${email}`);
    return user;
  };

  switch (action) {
    case 'list': {
      for (const u of await users.service.list()) {
        const memberships = (await users.service.workspacesOf(u.id)).map((w) => `${w.slug}:${w.role}`).join(',');
        out(`${u.id}\t${u.email}\t${memberships || '-'}\t${u.name}`);
      }
      return 0;
    }
    case 'create': {
      if (!values.email || !values.name) throw new Error('--email and --name are required');
      const workspace = values.role || values.workspace ? await resolveWorkspace() : undefined;
      const role = workspace ? roleOf(values.role) : undefined;
      const pw = password();
      const input = { email: values.email, name: values.name, password: pw.value };
      const user = workspace && role ? await users.service.createWithMembership(input, workspace.id, role, CLI) : await users.service.create(input);
      out(`Created user ${user.id} (${user.email})${workspace ? `, ${role} of ${workspace.slug}` : ''}`);
      if (pw.generated) out(`Password (shown once): ${pw.value}`);
      return 0;
    }
    case 'reset-password': {
      const user = await findUser(arg ?? values.email);
      const pw = password();
      await users.service.setPassword(user.id, pw.value);
      const ended = await users.sessions.revokeAll(user.id);
      out(`Password of ${user.email} reset; ${ended} session${ended === 1 ? '' : 's'} ended`);
      if (pw.generated) out(`Password (shown once): ${pw.value}`);
      return 0;
    }
    case 'add-membership': {
      const user = await findUser(arg ?? values.email);
      const workspace = await resolveWorkspace();
      const role = roleOf(values.role);
      await users.service.addMembership(user.id, workspace.id, role, CLI);
      out(`${user.email} is now ${role} of ${workspace.slug}`);
      return 0;
    }
    default:
      throw new Error(`unknown users command; one of: list, create, reset-password, add-membership`);
  }
}

/**
 * Users module: dashboard accounts, memberships, sessions and invitations, built once by app.ts
 * (the dashboard uses them) and by the CLI (`npx waymark users …`).
 *
 * @example
 * const users = createUsersModule({ database, now: Date.now });
 * const user = await users.service.create({ email, name, password });
 */
import type { OpenDatabase } from '../db/open.js';
import { createUserStore } from './store.js';
import { createUserService } from './service.js';
import { createSessions, type SessionOptions } from './sessions.js';
import { createInvitations, type MailWriter } from './invitations.js';
import { createPasswordResets } from './password-resets.js';
import { createProfile } from './profile.js';
import { createPasswordAccess } from './password-access.js';

export function createUsersModule({ database, now, sessions: sessionOptions, mail }: { database: Pick<OpenDatabase, 'db'>; now: () => number; sessions?: SessionOptions; mail?: MailWriter }) {
  const store = createUserStore(database.db);
  const service = createUserService({ store, now });
  return {
    service,
    sessions: createSessions({ store, now, ...sessionOptions }),
    invitations: createInvitations({ store, users: service, now, mail }),
    passwordResets: createPasswordResets({ store, now, mail }),
    profile: createProfile({ store, now, mail }),
    passwordAccess: createPasswordAccess({ store, now }),
  };
}

export type UsersModule = ReturnType<typeof createUsersModule>;

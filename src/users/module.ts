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
import { createInvitations } from './invitations.js';

export function createUsersModule({ database, now, sessions: sessionOptions }: { database: Pick<OpenDatabase, 'db'>; now: () => number; sessions?: SessionOptions }) {
  const store = createUserStore(database.db);
  const service = createUserService({ store, now });
  return {
    service,
    sessions: createSessions({ store, now, ...sessionOptions }),
    invitations: createInvitations({ store, users: service, now }),
  };
}

export type UsersModule = ReturnType<typeof createUsersModule>;

/**
 * SQL of users, memberships, sessions, invitations and setup tokens (migration 0012), one Kysely
 * builder for both engines. `transaction(fn)` runs `fn` with a store bound to one transaction.
 *
 * @example
 * const store = createUserStore(db);
 * const user = await store.findUserByEmailKey('ann@example.com');
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, InvitationsTable, PasswordResetsTable, SessionsTable, UsersTable } from '../db/tables.js';
import type { Role } from './roles.js';
import { passwordAccessOf, type PasswordAccess } from './password.js';

export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type InvitationRow = Selectable<InvitationsTable>;

/** A workspace a user belongs to, with the user's role there. */
export interface UserWorkspace {
  id: string;
  slug: string;
  name: string;
  role: Role;
}

/** A member of a workspace as the members page lists them. */
export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
  createdAt: number;
  /** How they sign in (users/password-access.ts); never the hash itself. */
  passwordAccess: PasswordAccess;
}

export function createUserStore(db: Kysely<Database>) {
  return {
    ...queries(db),
    /** The queries on a transaction someone else opened (a step of it: `TransactionStep`). */
    bound: (trx: Kysely<Database>): UserQueries => queries(trx),
    /** Runs `fn` with the queries bound to one transaction. */
    transaction<T>(fn: (store: UserQueries, trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) => fn(queries(trx), trx));
    },
  };
}

/** Owner memberships of one user (`user_id`) or of one workspace (`workspace_id`). */
async function countOwnerships(db: Kysely<Database>, column: 'user_id' | 'workspace_id', id: string): Promise<number> {
  const row = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(column, '=', id)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function queries(db: Kysely<Database>) {
  return {
    // Users
    async insertUser(row: Insertable<UsersTable>): Promise<void> {
      await db.insertInto('users').values(row).execute();
    },
    findUserByEmailKey: (emailKey: string) => db.selectFrom('users').selectAll().where('email_key', '=', emailKey).executeTakeFirst(),
    findUserById: (id: string) => db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst(),
    // Password resets (users/password-resets.ts)
    async insertPasswordReset(row: Insertable<PasswordResetsTable>): Promise<void> {
      await db.insertInto('password_resets').values(row).execute();
    },
    findPasswordReset: (tokenHash: string) => db.selectFrom('password_resets').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
    /** Marks the reset used if it is unused and unexpired; its user's id, or undefined (used, expired or unknown). */
    async usePasswordReset(tokenHash: string, now: number): Promise<string | undefined> {
      const row = await db
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('user_id')
        .executeTakeFirst();
      return row?.user_id;
    },
    /** Deletes the user's unused resets (a new password, or a new login address: an earlier link must not work). */
    async deletePasswordResetsOf(userId: string): Promise<void> {
      await db.deleteFrom('password_resets').where('user_id', '=', userId).where('used_at', 'is', null).execute();
    },
    /** Deletes resets that expired before `before` (run when a new one is made). */
    async sweepPasswordResets(before: number): Promise<void> {
      await db.deleteFrom('password_resets').where('expires_at', '<', before).execute();
    },
    /** The workspace's name (an invitation's mail names it). */
    workspaceName: async (workspaceId: string) => (await db.selectFrom('workspaces').select('name').where('id', '=', workspaceId).executeTakeFirst())?.name,
    async countUsers(): Promise<number> {
      const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    listUsers: () => db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute(),
    async setPassword(userId: string, passwordHash: string): Promise<boolean> {
      const r = await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** When an owner allowed the SSO account a password, or null to withdraw it (users/password-access.ts). */
    async setPasswordAllowed(userId: string, at: number | null): Promise<void> {
      await db.updateTable('users').set({ password_allowed_at: at }).where('id', '=', userId).execute();
    },

    // Profile (users/profile.ts)
    async setName(userId: string, name: string): Promise<void> {
      await db.updateTable('users').set({ name }).where('id', '=', userId).execute();
    },
    async setEmail(userId: string, email: string, emailKey: string): Promise<void> {
      await db.updateTable('users').set({ email, email_key: emailKey }).where('id', '=', userId).execute();
    },
    /**
     * Holds the user's row until the transaction ends (a no-op update: PostgreSQL's row lock; on
     * SQLite the write holds the database), so counts of their memberships taken after it stay true.
     */
    async lockUser(userId: string): Promise<void> {
      await db.updateTable('users').set((eb) => ({ created_at: eb.ref('created_at') })).where('id', '=', userId).execute();
    },
    /** Workspaces the user owns (the dashboard's creation cap). */
    countOwned: (userId: string) => countOwnerships(db, 'user_id', userId),

    // Memberships
    async upsertMembership(userId: string, workspaceId: string, role: Role, now: number): Promise<void> {
      await db
        .insertInto('memberships')
        .values({ user_id: userId, workspace_id: workspaceId, role, created_at: now })
        .onConflict((oc) => oc.columns(['user_id', 'workspace_id']).doUpdateSet({ role }))
        .execute();
    },
    async roleOf(userId: string, workspaceId: string): Promise<Role | undefined> {
      const row = await db.selectFrom('memberships').select('role').where('user_id', '=', userId).where('workspace_id', '=', workspaceId).executeTakeFirst();
      return row?.role as Role | undefined;
    },
    async workspacesOf(userId: string): Promise<UserWorkspace[]> {
      const rows = await db
        .selectFrom('memberships as m')
        .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
        .select(['w.id', 'w.slug', 'w.name', 'm.role'])
        .where('m.user_id', '=', userId)
        .orderBy('w.name')
        .orderBy('w.id')
        .execute();
      return rows.map((r) => ({ ...r, role: r.role as Role }));
    },
    async membersOf(workspaceId: string): Promise<Member[]> {
      const rows = await db
        .selectFrom('memberships as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.email', 'u.name', 'u.password_hash', 'u.password_allowed_at', 'm.role', 'm.created_at'])
        .where('m.workspace_id', '=', workspaceId)
        .orderBy('m.created_at')
        .orderBy('u.id')
        .execute();
      return rows.map((r) => ({ userId: r.id, email: r.email, name: r.name, role: r.role as Role, createdAt: r.created_at, passwordAccess: passwordAccessOf(r) }));
    },
    async setRole(userId: string, workspaceId: string, role: Role): Promise<boolean> {
      const r = await db.updateTable('memberships').set({ role }).where('user_id', '=', userId).where('workspace_id', '=', workspaceId).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async deleteMembership(userId: string, workspaceId: string): Promise<boolean> {
      const r = await db.deleteFrom('memberships').where('user_id', '=', userId).where('workspace_id', '=', workspaceId).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    countOwners: (workspaceId: string) => countOwnerships(db, 'workspace_id', workspaceId),

    // Sessions
    async insertSession(row: SessionRow): Promise<void> {
      await db.insertInto('sessions').values(row).execute();
    },
    findSession: (tokenHash: string) => db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
    async touchSession(tokenHash: string, lastSeenAt: number, expiresAt: number): Promise<void> {
      await db.updateTable('sessions').set({ last_seen_at: lastSeenAt, expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
    },
    async setReauthenticated(tokenHash: string, at: number): Promise<void> {
      await db.updateTable('sessions').set({ reauthenticated_at: at }).where('token_hash', '=', tokenHash).execute();
    },
    async deleteSession(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },
    async deleteSessionsOf(userId: string): Promise<number> {
      const r = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Ends the user's sessions but the one of `keepHash` (an email change keeps the browser that made it). */
    async deleteSessionsOfExcept(userId: string, keepHash: string): Promise<number> {
      const r = await db.deleteFrom('sessions').where('user_id', '=', userId).where('token_hash', '!=', keepHash).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Ends the user's sessions opened with a password (those of single sign-on carry their ID token). */
    async deletePasswordSessionsOf(userId: string): Promise<number> {
      const r = await db.deleteFrom('sessions').where('user_id', '=', userId).where('sso_id_token', 'is', null).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async deleteExpiredSessions(now: number): Promise<void> {
      await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
    },

    // Invitations
    async insertInvitation(row: InvitationRow): Promise<void> {
      await db.insertInto('invitations').values(row).execute();
    },
    findInvitationByHash: (tokenHash: string) => db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),
    pendingInvitations: (workspaceId: string, now: number) =>
      db
        .selectFrom('invitations')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('accepted_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    /** Marks an invitation accepted; false when it already was (two tabs, a replayed form). */
    async acceptInvitation(id: string, now: number): Promise<boolean> {
      const r = await db.updateTable('invitations').set({ accepted_at: now }).where('id', '=', id).where('accepted_at', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async deleteInvitation(workspaceId: string, id: string): Promise<boolean> {
      const r = await db.deleteFrom('invitations').where('workspace_id', '=', workspaceId).where('id', '=', id).where('accepted_at', 'is', null).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    // Setup tokens
    /** Deletes every unused setup token (a new one replaces them). */
    async deleteUnusedSetupTokens(): Promise<void> {
      await db.deleteFrom('setup_tokens').where('used_at', 'is', null).execute();
    },
    async insertSetupToken(tokenHash: string, now: number): Promise<void> {
      await db.insertInto('setup_tokens').values({ token_hash: tokenHash, created_at: now, used_at: null }).execute();
    },
    /** Whether the token exists, is unused and was made after `notBefore`. */
    async setupTokenUsable(tokenHash: string, notBefore: number): Promise<boolean> {
      const row = await db.selectFrom('setup_tokens').select(['used_at', 'created_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
      return !!row && row.used_at === null && row.created_at > notBefore;
    },
    /** Uses the token (unused, made after `notBefore`); false otherwise. Every other token is retired with it. */
    async useSetupToken(tokenHash: string, now: number, notBefore: number): Promise<boolean> {
      const r = await db
        .updateTable('setup_tokens')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('created_at', '>', notBefore)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await db.updateTable('setup_tokens').set({ used_at: now }).where('used_at', 'is', null).execute();
      return true;
    },
  };
}

export type UserQueries = ReturnType<typeof queries>;
export type UserStore = ReturnType<typeof createUserStore>;

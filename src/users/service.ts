/**
 * Users and their memberships: creation, password checks and resets, roles per workspace, and
 * the first-run setup token. Sessions are in sessions.ts, invitations in invitations.ts.
 *
 * @example
 * const users = createUserService({ store: createUserStore(db), now: Date.now });
 * const user = await users.create({ email: 'ann@example.com', name: 'Ann', password: '…' });
 * await users.addMembership(user.id, workspaceId, 'owner');
 * const same = await users.checkPassword('ANN@example.com', '…'); // UserRow | null
 */
import { record, type Who } from '../audit/record.js';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { hashPassword, verifyPassword } from './password.js';
import { emailKey, NewUser, parseInput, Password } from './schema.js';
import { hashToken, newToken } from './tokens.js';
import type { Member, UserQueries, UserRow, UserStore, UserWorkspace } from './store.js';
import type { Role } from './roles.js';
import { deviceToken, knownDevice } from './devices.js';
import type { TransactionStep } from '../db/tables.js';

export interface UserServiceDeps {
  store: UserStore;
  now: () => number;
}

/** How long a setup address works: 24 hours. */
export const SETUP_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

export function createUserService({ store, now }: UserServiceDeps) {
  async function insertUser(s: UserQueries, input: NewUser): Promise<UserRow> {
    const valid = parseInput(NewUser, input);
    const key = emailKey(valid.email);
    if (await s.findUserByEmailKey(key)) throw new ApiError('conflict', 'A user with this email address already exists.');
    const row: UserRow = {
      id: newId('user', now()),
      email: valid.email,
      email_key: key,
      name: valid.name,
      password_hash: await hashPassword(valid.password),
      created_at: now(),
      password_allowed_at: null,
    };
    await s.insertUser(row);
    return row;
  }

  /** Refuses a change that would leave the workspace without an owner. */
  async function assertOwnerRemains(s: UserQueries, userId: string, workspaceId: string, newRole: Role | null): Promise<void> {
    const current = await s.roleOf(userId, workspaceId);
    if (current === undefined) throw new ApiError('not_found', 'This person is not a member of the workspace.');
    if (current === 'owner' && newRole !== 'owner' && (await s.countOwners(workspaceId)) <= 1) {
      throw new ApiError('conflict', 'A workspace keeps at least one owner: make someone else owner first.');
    }
  }

  return {
    /** Creates a user (email unique whatever its case). 422 on bad input, 409 on a taken address. */
    create: (input: NewUser): Promise<UserRow> => insertUser(store, input),

    /** Creates a user and their membership in one transaction, after `first` (in it) if given. */
    createWithMembership: (input: NewUser, workspaceId: string, role: Role, who: Who | undefined, first?: (s: UserQueries) => Promise<void>, action = 'member.add'): Promise<UserRow> =>
      store.transaction(async (s, trx) => {
        await first?.(s);
        const user = await insertUser(s, input);
        await s.upsertMembership(user.id, workspaceId, role, now());
        // Who joins by invitation signs up in this request: they are the actor.
        await record(trx, who, { workspaceId, action, targetIds: user.id, changes: { email: user.email, role }, actor: action === 'member.join' ? { type: 'user', id: user.id } : undefined });
        return user;
      }),

    findById: (id: string) => store.findUserById(id),
    findByEmail: (email: string) => store.findUserByEmailKey(emailKey(email)),
    list: () => store.listUsers(),
    count: () => store.countUsers(),

    /**
     * The user with this address and password, or null. Runs scrypt once whether or not the
     * address exists, so the answer's timing does not tell which addresses have accounts.
     */
    async checkPassword(email: string, password: string): Promise<UserRow | null> {
      const user = await store.findUserByEmailKey(emailKey(email).slice(0, 254));
      const ok = await verifyPassword(user?.password_hash ?? null, password);
      return ok && user ? user : null;
    },

    /** A new device token for a browser that just logged in (devices.ts). */
    deviceToken: (user: UserRow) => deviceToken(user, now()),

    /** The id of this browser's device token when it is one of the account's (devices.ts), else null. */
    async knownDevice(email: string, token: string | undefined): Promise<string | null> {
      if (!token) return null;
      return knownDevice(token, await store.findUserByEmailKey(emailKey(email).slice(0, 254)), now());
    },

    /**
     * Sets a new password and voids the account's unused reset links (one mailed before the change
     * must not undo it); the caller ends the user's sessions (sessions.revokeAll).
     */
    async setPassword(userId: string, password: string): Promise<void> {
      const hash = await hashPassword(parseInput(Password, password));
      await store.transaction(async (s) => {
        if (!(await s.setPassword(userId, hash))) throw new ApiError('not_found', 'User not found.');
        await s.deletePasswordResetsOf(userId);
      });
    },

    // Memberships
    roleOf: (userId: string, workspaceId: string): Promise<Role | undefined> => store.roleOf(userId, workspaceId),
    workspacesOf: (userId: string): Promise<UserWorkspace[]> => store.workspacesOf(userId),
    membersOf: (workspaceId: string): Promise<Member[]> => store.membersOf(workspaceId),
    /**
     * Adds the membership (`member.add`), or changes its role (`member.role`; refused if that
     * leaves the workspace without an owner). The CLI's `users add-membership`.
     */
    addMembership: (userId: string, workspaceId: string, role: Role, who?: Who): Promise<void> =>
      store.transaction(async (s, trx) => {
        const current = await s.roleOf(userId, workspaceId);
        if (current) await assertOwnerRemains(s, userId, workspaceId, role);
        await s.upsertMembership(userId, workspaceId, role, now());
        if (current === role) return;
        await record(trx, who, { workspaceId, action: current ? 'member.role' : 'member.add', targetIds: userId, changes: { role } });
      }),

    /**
     * A step of a new workspace's transaction (workspaces/creation.ts): the user becomes its
     * owner, refused (403) when they would own more than `limit` workspaces. The user's row is
     * locked first, so two creations at once count each other.
     */
    ownershipStep: (userId: string, workspaceId: string, limit: number): TransactionStep => async (trx) => {
      const s = store.bound(trx);
      await s.lockUser(userId);
      if ((await s.countOwned(userId)) >= limit) throw new ApiError('forbidden', `You already own ${limit} workspaces, the most one person can own here.`);
      await s.upsertMembership(userId, workspaceId, 'owner', now());
    },

    async changeRole(workspaceId: string, userId: string, role: Role, who?: Who): Promise<void> {
      await store.transaction(async (s, trx) => {
        await assertOwnerRemains(s, userId, workspaceId, role);
        await s.setRole(userId, workspaceId, role);
        await record(trx, who, { workspaceId, action: 'member.role', targetIds: userId, changes: { role } });
      });
    },

    async removeMember(workspaceId: string, userId: string, who?: Who): Promise<void> {
      await store.transaction(async (s, trx) => {
        await assertOwnerRemains(s, userId, workspaceId, null);
        await s.deleteMembership(userId, workspaceId);
        await record(trx, who, { workspaceId, action: 'member.remove', targetIds: userId });
      });
    },

    // First run
    /**
     * While no user exists: a new one-time setup token (stored hashed), valid for
     * `SETUP_TOKEN_TTL_MS`, which replaces every earlier unused one; otherwise null. Each start
     * prints it, and the earlier ones are in logs.
     */
    async issueSetupToken(): Promise<string | null> {
      if ((await store.countUsers()) > 0) return null;
      const token = newToken();
      await store.transaction(async (s) => {
        await s.deleteUnusedSetupTokens();
        await s.insertSetupToken(hashToken(token), now());
      });
      return token;
    },

    /** Whether the setup page may be shown for this token (the current one, unused, unexpired, and still no user). */
    async setupTokenUsable(token: string): Promise<boolean> {
      return (await store.setupTokenUsable(hashToken(token), now() - SETUP_TOKEN_TTL_MS)) && (await store.countUsers()) === 0;
    },

    /** Uses the setup token to create the first owner of `workspaceId`. 404 when it is unknown, used, replaced or expired. */
    completeSetup(token: string, input: NewUser, workspaceId: string): Promise<UserRow> {
      return store.transaction(async (s) => {
        if (!(await s.useSetupToken(hashToken(token), now(), now() - SETUP_TOKEN_TTL_MS)) || (await s.countUsers()) > 0) {
          throw new ApiError('not_found', 'This setup address has already been used.');
        }
        const user = await insertUser(s, input);
        await s.upsertMembership(user.id, workspaceId, 'owner', now());
        return user;
      });
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;

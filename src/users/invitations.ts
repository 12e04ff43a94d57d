/**
 * Invitations: an owner invites an email address with a role and gets a link to hand over (no
 * mail is sent). The link holds a random token, stored only hashed; it expires after `ttlMs`
 * (answered 410 `invite_expired`) and works once. Accepting adds the membership to the account
 * with that address, or creates the account first.
 *
 * @example
 * const { token } = await invitations.invite(workspaceId, { email: 'bo@example.com', role: 'viewer' }, owner.id);
 * const invitation = await invitations.open(token);   // 404 unknown or used, 410 expired
 * await invitations.acceptAsNewUser(token, { name: 'Bo', password: '…' });
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/tables.js';
import type { MailIntent } from '../mail/intents.js';
import { record, type Who } from '../audit/record.js';
import { z } from 'zod';
import { ApiError } from '../http/errors.js';
import { newId } from '../ids.js';
import { Email, emailKey, Name, parseInput, Password, RoleInput } from './schema.js';
import { hashToken, newToken } from './tokens.js';
import type { UserService } from './service.js';
import type { InvitationRow, UserRow, UserStore } from './store.js';
import type { Role } from './roles.js';

const DAY = 24 * 60 * 60 * 1000;
export const INVITATION_TTL_MS = 7 * DAY;

const InviteInput = z.object({ email: Email, role: RoleInput });

/** Writes a mail to the outbox in the caller's transaction (src/mail/); absent without SMTP_URL. */
export interface MailWriter {
  write(trx: Kysely<Database>, intent: MailIntent, workspaceId: string): Promise<void>;
  /** After the commit: deliver now. */
  nudge(): void;
}

export function createInvitations({ store, users, now, ttlMs = INVITATION_TTL_MS, mail }: { store: UserStore; users: UserService; now: () => number; ttlMs?: number; mail?: MailWriter }) {
  /** The invitation of this token, still usable; 404 if unknown or accepted, 410 if expired. */
  async function open(token: string): Promise<InvitationRow> {
    const found = token && token.length <= 100 ? await store.findInvitationByHash(hashToken(token)) : undefined;
    if (!found || found.accepted_at !== null) throw new ApiError('not_found', 'This invitation does not exist or has already been used.');
    if (found.expires_at <= now()) throw new ApiError('invite_expired', 'This invitation has expired: ask an owner of the workspace for a new one.');
    return found;
  }

  return {
    ttlMs,
    open,

    /** `emailed`: the invitation's link was also mailed to the address (SMTP_URL set). */
    async invite(workspaceId: string, input: { email: string; role: string }, invitedBy: string | null, who?: Who): Promise<{ token: string; invitation: InvitationRow; emailed: boolean }> {
      const valid = parseInput(InviteInput, input);
      const existing = await users.findByEmail(valid.email);
      if (existing && (await users.roleOf(existing.id, workspaceId))) throw new ApiError('conflict', 'This person is already a member of the workspace.');
      const token = newToken();
      const t = now();
      const invitation: InvitationRow = {
        id: newId('inv', t),
        workspace_id: workspaceId,
        email: valid.email,
        email_key: emailKey(valid.email),
        role: valid.role,
        token_hash: hashToken(token),
        invited_by: invitedBy,
        created_at: t,
        expires_at: t + ttlMs,
        accepted_at: null,
      };
      await store.transaction(async (s, trx) => {
        await s.insertInvitation(invitation);
        await record(trx, who, { workspaceId, action: 'invitation.create', targetIds: invitation.id, changes: { email: invitation.email, role: invitation.role } });
        if (mail) {
          const inviter = invitedBy ? await s.findUserById(invitedBy) : undefined;
          const workspaceName = (await s.workspaceName(workspaceId)) ?? 'a workspace';
          await mail.write(trx, { kind: 'invitation', to: invitation.email, workspaceName, inviterName: inviter?.name ?? null, token, expiresAt: invitation.expires_at }, workspaceId);
        }
      });
      mail?.nudge();
      return { token, invitation, emailed: !!mail };
    },

    pending: (workspaceId: string) => store.pendingInvitations(workspaceId, now()),
    async revoke(workspaceId: string, id: string, who?: Who): Promise<void> {
      await store.transaction(async (s, trx) => {
        if (!(await s.deleteInvitation(workspaceId, id))) throw new ApiError('not_found', 'Invitation not found.');
        await record(trx, who, { workspaceId, action: 'invitation.revoke', targetIds: id });
      });
    },

    /** Accepts for a logged-in user, whose address must be the invited one. */
    async acceptAsUser(token: string, user: UserRow, who?: Who): Promise<InvitationRow> {
      const invitation = await open(token);
      if (invitation.email_key !== user.email_key) {
        throw new ApiError('forbidden', 'This invitation is for another email address: log out and open it again.');
      }
      await store.transaction(async (s, trx) => {
        if (!(await s.acceptInvitation(invitation.id, now()))) throw new ApiError('not_found', 'This invitation has already been used.');
        // Someone who became a member meanwhile keeps their role: an invitation never demotes
        // (it could otherwise take the workspace's last owner away).
        if (!(await s.roleOf(user.id, invitation.workspace_id))) await s.upsertMembership(user.id, invitation.workspace_id, invitation.role as Role, now());
        await record(trx, who, { workspaceId: invitation.workspace_id, action: 'member.join', targetIds: user.id, changes: { invitation: invitation.id, role: invitation.role }, actor: { type: 'user', id: user.id } });
      });
      return invitation;
    },

    /** Accepts by creating the account of the invited address (409 if it exists: log in instead). */
    async acceptAsNewUser(token: string, input: { name: string; password: string }, who?: Who): Promise<{ user: UserRow; invitation: InvitationRow }> {
      const invitation = await open(token);
      parseInput(z.object({ name: Name, password: Password }), input);
      const user = await users.createWithMembership(
        { email: invitation.email, name: input.name, password: input.password },
        invitation.workspace_id,
        invitation.role as Role,
        who,
        async (s) => {
          if (!(await s.acceptInvitation(invitation.id, now()))) throw new ApiError('not_found', 'This invitation has already been used.');
        },
        'member.join',
      );
      return { user, invitation };
    },
  };
}

export type Invitations = ReturnType<typeof createInvitations>;

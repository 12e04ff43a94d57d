/**
 * Settings → Members: list (every role), invite, change role, remove, revoke an invitation, allow
 * or withdraw a password for a single sign-on account (owners; users/password-access.ts).
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { errorsOfRefusal } from '../form-errors.js';
import type { DashboardDeps, Kit, WorkspacePage } from '../kit.js';
import { HIDDEN, redirect, sendPage } from '../kit.js';
import { MembersPage, type MembersView } from '../pages/members.js';
import { workspacePath } from '../layout.js';
import { RoleInput, parseInput } from '../../users/schema.js';

type Form = Record<string, string | undefined>;
type Params = { slug: string; id: string };

export function memberRoutes({ config, users }: DashboardDeps, kit: Kit): FastifyPluginAsync {
  async function show(reply: FastifyReply, page: WorkspacePage, extra: Pick<MembersView, 'inviteLink' | 'errors' | 'values'> = {}, status = 200) {
    const [members, pending] = await Promise.all([users.service.membersOf(page.workspace.id), users.invitations.pending(page.workspace.id)]);
    const invitations = pending.map((i) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expires_at }));
    const frame = { ...page.frame, workspace: page.frame.workspace! };
    return sendPage(reply, <MembersPage frame={frame} members={members} invitations={invitations} {...extra} />, status);
  }
  const back = (page: WorkspacePage) => workspacePath(page.workspace.slug, '/settings/members');

  return async (app) => {
    // Settings opens on its first tab, General (every role may read it).
    app.get<{ Params: { slug: string } }>('/dashboard/w/:slug/settings', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug);
      return redirect(reply, workspacePath(page.workspace.slug, '/settings/general'));
    });

    app.get<{ Params: { slug: string } }>('/dashboard/w/:slug/settings/members', { schema: HIDDEN }, async (request, reply) =>
      show(reply, await kit.workspacePage(request, request.params.slug)),
    );

    app.post<{ Params: { slug: string }; Body: Form }>('/dashboard/w/:slug/settings/members/invite', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'members.manage');
      try {
        const { token, invitation, emailed } = await users.invitations.invite(
          page.workspace.id,
          { email: String(request.body?.email ?? ''), role: String(request.body?.role ?? '') },
          page.userId,
          page.who,
        );
        const url = `${config.baseUrl}/dashboard/invite?token=${token}`;
        return show(reply, page, { inviteLink: { url, email: invitation.email, expiresAt: invitation.expires_at, emailed } }, 201);
      } catch (err) {
        if (!(err instanceof ApiError) || (err.status !== 422 && err.status !== 409)) throw err;
        return show(reply, page, { errors: errorsOfRefusal(err, { email: 'the email address', role: 'the role' }, 'email'), values: { email: String(request.body?.email ?? '') } }, err.status);
      }
    });

    app.post<{ Params: Params; Body: Form }>('/dashboard/w/:slug/settings/members/:id/role', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'members.manage');
      await users.service.changeRole(page.workspace.id, request.params.id, parseInput(RoleInput, request.body?.role), page.who);
      return redirect(reply, back(page));
    });

    // `allowed=true` lets an SSO account get a password by "Forgot password?"; `allowed=false` removes it.
    app.post<{ Params: Params; Body: Form }>('/dashboard/w/:slug/settings/members/:id/password', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'members.manage');
      const target = { workspaceId: page.workspace.id, userId: request.params.id };
      const allowed = request.body?.allowed;
      if (allowed !== 'true' && allowed !== 'false') throw new ApiError('unprocessable_entity', 'allowed: must be true or false', { field: 'allowed' });
      try {
        if (allowed === 'true') await users.passwordAccess.allow({ ...target, actorId: page.userId }, page.who);
        else await users.passwordAccess.withdraw(target, page.who);
      } catch (err) {
        if (!(err instanceof ApiError) || (err.status !== 403 && err.status !== 409)) throw err;
        return show(reply, page, { errors: { form: err.message } }, err.status);
      }
      return redirect(reply, back(page));
    });

    app.post<{ Params: Params }>('/dashboard/w/:slug/settings/members/:id/remove', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'members.manage');
      await users.service.removeMember(page.workspace.id, request.params.id, page.who);
      return redirect(reply, back(page));
    });

    app.post<{ Params: Params }>('/dashboard/w/:slug/settings/invitations/:id/revoke', { schema: HIDDEN }, async (request, reply) => {
      const page = await kit.workspacePage(request, request.params.slug, 'members.manage');
      await users.invitations.revoke(page.workspace.id, request.params.id, page.who);
      return redirect(reply, back(page));
    });
  };
}

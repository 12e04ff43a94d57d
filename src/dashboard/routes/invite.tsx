/** The invitation link: `/dashboard/invite?token=…` shows it, the form posts to `/dashboard/invite`. */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../http/errors.js';
import type { DashboardDeps } from '../kit.js';
import { HIDDEN, csrfFor, isSecure, redirect, sendPage, sessionCookie } from '../kit.js';
import { InvitePage, type InviteMode } from '../pages/invite.js';
import { workspacePath } from '../layout.js';
import type { InvitationRow } from '../../users/store.js';
import { whoOf } from '../../audit/record.js';

type Form = Record<string, string | undefined>;

export function inviteRoutes({ config, users, workspaces }: DashboardDeps): FastifyPluginAsync {
  const secure = isSecure(config);

  async function render(request: FastifyRequest, reply: FastifyReply, token: string, invitation: InvitationRow, status = 200, extra: { error?: string; name?: string } = {}) {
    const workspace = await workspaces.findWorkspace(invitation.workspace_id);
    const session = request.dashboard?.session;
    let mode: InviteMode;
    if (session) mode = session.user.email_key === invitation.email_key ? 'join' : 'other-account';
    else mode = (await users.service.findByEmail(invitation.email)) ? 'login' : 'create';
    const page = (
      <InvitePage
        csrf={csrfFor(request, reply, secure)}
        token={token}
        workspaceName={workspace?.name ?? 'a workspace'}
        role={invitation.role}
        email={invitation.email}
        mode={mode}
        loginUrl={`/dashboard/login?next=${encodeURIComponent(`/dashboard/invite?token=${token}`)}`}
        values={{ name: extra.name }}
        error={extra.error}
      />
    );
    return sendPage(reply, page, status);
  }

  return async (app) => {
    app.get<{ Querystring: Form }>('/dashboard/invite', { config: { anonymous: true }, schema: HIDDEN }, async (request, reply) => {
      const token = String(request.query.token ?? '');
      return render(request, reply, token, await users.invitations.open(token));
    });

    app.post<{ Body: Form }>('/dashboard/invite', { config: { anonymous: true }, schema: HIDDEN }, async (request, reply) => {
      const body = request.body ?? {};
      const token = String(body.token ?? '');
      const session = request.dashboard?.session;
      if (session) {
        const invitation = await users.invitations.acceptAsUser(token, session.user, whoOf(request));
        const workspace = await workspaces.findWorkspace(invitation.workspace_id);
        return redirect(reply, workspace ? workspacePath(workspace.slug, '/links') : '/dashboard');
      }
      const input = { name: String(body.name ?? ''), password: String(body.password ?? '') };
      try {
        const { user, invitation } = await users.invitations.acceptAsNewUser(token, input, whoOf(request));
        const { token: sessionToken } = await users.sessions.start(user.id);
        reply.header('set-cookie', sessionCookie(sessionToken, config, users.sessions.settings.absoluteMs));
        const workspace = await workspaces.findWorkspace(invitation.workspace_id);
        return redirect(reply, workspace ? workspacePath(workspace.slug, '/links') : '/dashboard');
      } catch (err) {
        if (!(err instanceof ApiError) || (err.status !== 422 && err.status !== 409)) throw err;
        return render(request, reply, token, await users.invitations.open(token), err.status, { error: err.message, name: input.name });
      }
    });
  };
}

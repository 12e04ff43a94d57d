/**
 * `GET|POST /dashboard/workspaces/new`: a signed-in user creates a workspace and becomes its
 * owner (src/workspaces/creation.ts: who may, how many, the owner and the audit entry in one
 * transaction), then lands on its links page. A refusal the person can fix (422 bad name or slug,
 * 409 taken slug) is shown at its field with what was typed; the WORKSPACE_CREATION rule's
 * refusal is a 403 page without the form.
 */
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../http/errors.js';
import { createOwnedWorkspace, creationRefusal } from '../../workspaces/creation.js';
import type { DashboardDeps, Kit } from '../kit.js';
import { HIDDEN, fieldErrorOf, redirect, sendPage, sessionOf } from '../kit.js';
import { NEW_WORKSPACE_PATH, workspacePath } from '../layout.js';
import { NewWorkspacePage, type NewWorkspaceForm } from '../pages/new-workspace.js';
import { whoOf } from '../../audit/record.js';

type Form = Record<string, string | undefined>;

/** The schema's refusals of a name or slug, as sentences for people (a reserved slug's message says itself). */
const SENTENCES: Record<string, string> = {
  name: 'Give the workspace a name of 1 to 32 characters.',
  slug: 'The slug is 3 to 48 letters, digits and hyphens.',
};
function messagesOf(err: ApiError): NewWorkspaceForm['errors'] {
  const errors = fieldErrorOf(err, ['name', 'slug']);
  if (err.status === 422 && err.field && SENTENCES[err.field] && !/reserved/.test(err.message)) return { [err.field]: SENTENCES[err.field] };
  return errors;
}

export function newWorkspaceRoutes({ config, users, workspaces }: DashboardDeps, kit: Kit): FastifyPluginAsync {
  const rule = config.workspaceCreation;
  return async (app) => {
    app.get(NEW_WORKSPACE_PATH, { schema: HIDDEN }, async (request, reply) => {
      const frame = await kit.accountFrame(request);
      const refusal = creationRefusal(rule, frame.workspaces) ?? undefined;
      return sendPage(reply, <NewWorkspacePage frame={frame} refusal={refusal} />, refusal ? 403 : 200);
    });

    app.post<{ Body: Form }>(NEW_WORKSPACE_PATH, { schema: HIDDEN }, async (request, reply) => {
      const { user } = sessionOf(request);
      const values = { name: String(request.body?.name ?? '').slice(0, 200), slug: String(request.body?.slug ?? '').slice(0, 200) };
      const show = async (status: number, form: NewWorkspaceForm) => sendPage(reply, <NewWorkspacePage frame={await kit.accountFrame(request)} {...form} />, status);
      try {
        const memberships = await users.service.workspacesOf(user.id);
        const created = await createOwnedWorkspace({ workspaces, ownershipStep: users.service.ownershipStep }, rule, user.id, memberships, values, whoOf(request));
        return redirect(reply, workspacePath(created.slug, '/links'));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (err.status === 403) return show(403, { refusal: err.message });
        if (err.status === 409 || err.status === 422) return show(err.status, { values, errors: messagesOf(err) });
        throw err;
      }
    });
  };
}

/**
 * The new-workspace form (routes/new-workspace.tsx): a name and a slug, which links.js suggests
 * from the name as it is typed until the slug is edited by hand (without JavaScript an empty slug
 * gets the same suggestion on the server). Refusals come back at their field (`err-name`,
 * `err-slug`), or above the form when they concern no field (the WORKSPACE_CREATION rule).
 */
import { CsrfField, FieldError, FormError, Layout, NEW_WORKSPACE_PATH, type Frame } from '../layout.js';

export interface NewWorkspaceForm {
  values?: { name?: string; slug?: string };
  /** Messages by field (`name`, `slug`); `form` for refusals of no field. */
  errors?: { name?: string; slug?: string; form?: string };
  /** Why this user may not create a workspace at all (no form then). */
  refusal?: string;
}

export function NewWorkspacePage({ frame, values, errors = {}, refusal }: { frame: Frame } & NewWorkspaceForm): JSX.Element {
  return (
    <Layout frame={frame} title="New workspace" section="account">
      <h1>New workspace</h1>
      {refusal ? (
        <p class="error" role="alert" safe>
          {refusal}
        </p>
      ) : (
        <>
          <p class="hint">You become its owner; invite others from its settings.</p>
          <FormError message={errors.form} />
          <form method="post" action={NEW_WORKSPACE_PATH} class="stack" data-new-workspace>
            <CsrfField token={frame.csrf} />
            <label>
              Name
              <input
                type="text"
                name="name"
                value={values?.name ?? ''}
                maxlength="32"
                required
                autofocus
                data-slug-source
                aria-invalid={errors.name ? 'true' : undefined}
                aria-describedby={errors.name ? 'err-name' : undefined}
              />
            </label>
            <FieldError id="name" message={errors.name} />
            <label>
              Slug <span class="hint">(3–48 letters, digits and hyphens; part of its dashboard addresses; empty: made from the name)</span>
              <input
                type="text"
                name="slug"
                value={values?.slug ?? ''}
                minlength="3"
                maxlength="48"
                pattern="[A-Za-z0-9\-]+"
                data-slug-target
                aria-invalid={errors.slug ? 'true' : undefined}
                aria-describedby={errors.slug ? 'err-slug' : undefined}
              />
            </label>
            <FieldError id="slug" message={errors.slug} />
            <button type="submit">Create workspace</button>
          </form>
        </>
      )}
    </Layout>
  );
}

/**
 * The link picker: one search field that narrows the links offered as it is typed, and the
 * choice itself, either one link (a `<select name="linkId">`: the analytics and events filters) or
 * several (`link_<id>` checkboxes: the webhook form's links for link.clicked). As it is typed,
 * htmx asks `GET …/analytics/link-options` (routes/analytics.tsx) for the choice's new inner
 * part, the chosen links kept; without JavaScript a filter form's *Apply* does the same search.
 *
 * @example
 * <LinkPicker id="link-choices" optionsUrl={`${base}/link-options`} search={q.linkSearch} links={choices} selected={[q.linkId]} />
 * <LinkPicker many id="webhook-link-choices" optionsUrl={…} search="" links={choices} selected={webhook.linkIds} />
 */

export interface LinkChoice {
  value: string;
  label: string;
}

/** The `<option>`s of the one-link choice: "Any link" and the links found (the chosen one included). */
export function LinkOptions({ links, selected }: { links: LinkChoice[]; selected?: string }): JSX.Element {
  return (
    <>
      <option value="">Any link</option>
      {links.map((c) => (
        <option value={c.value} selected={selected === c.value} safe>
          {c.label}
        </option>
      ))}
    </>
  );
}

/** The checkboxes of the several-links choice, the chosen ones ticked. */
export function LinkCheckboxes({ links, selected }: { links: LinkChoice[]; selected: readonly string[] }): JSX.Element {
  const ticked = new Set(selected);
  return (
    <>
      {links.length === 0 ? <p class="hint">No link found.</p> : ''}
      {links.map((l) => (
        <label class="inline">
          <input type="checkbox" name={`link_${l.value}`} value="on" checked={ticked.has(l.value)} /> <span safe>{l.label}</span>
        </label>
      ))}
    </>
  );
}

export function LinkPicker(v: { id: string; optionsUrl: string; search: string; links: LinkChoice[]; selected: readonly string[]; many?: boolean }): JSX.Element {
  const url = v.many ? `${v.optionsUrl}?as=checkboxes` : v.optionsUrl;
  return (
    <>
      <label>
        Find a link
        <input
          type="search"
          name="linkSearch"
          value={v.search}
          maxlength="200"
          placeholder="Key or destination"
          autocomplete="off"
          hx-get={url}
          hx-trigger="input changed delay:300ms, search"
          hx-target={`#${v.id}`}
          hx-swap="innerHTML"
          hx-include={`this, #${v.id}`}
          aria-controls={v.id}
          data-search-only={v.many ? '' : undefined}
        />
      </label>
      {v.many ? (
        <div id={v.id} class="link-choices" role="group" aria-label="Links">
          <LinkCheckboxes links={v.links} selected={v.selected} />
        </div>
      ) : (
        <label>
          Link
          <select name="linkId" id={v.id}>
            <LinkOptions links={v.links} selected={v.selected[0]} />
          </select>
        </label>
      )}
    </>
  );
}

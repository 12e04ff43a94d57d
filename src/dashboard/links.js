/* Waymark dashboard, links pages: small enhancements over forms that work without JavaScript.
   Loaded on every page (it is ~1 KB) and wired by event delegation, so pages swapped in by htmx
   need no re-initialisation. No inline script anywhere: the CSP forbids it.
   - [data-copy="text"] buttons copy their text (they start hidden: without JavaScript they could not work);
   - [data-select-all] toggles every [data-select] checkbox of its form;
   - [data-needs-selection] buttons are disabled while no [data-select] box of their form is ticked;
   - typing in a [data-preview] field ticks the form's "Custom link preview" ([name=proxy]);
   - [data-utm] fields write their parameter into the form's [data-utm-target] URL, and editing
     that URL fills them back;
   - choosing an option of a [data-utm-template="<form id>"] select fills that form's [data-utm]
     fields from the option's data-utm_* (empty ones cleared), and so the URL; [data-no-js]
     elements (the picker's Apply button, for browsers without JavaScript) are hidden and
     [data-needs-js] ones (Fetch from destination, an htmx button) shown;
   - a submit button (or form) with [data-confirm="what is lost"] opens the page's <dialog id="confirm">
     first and submits only when "confirm" is pressed (the listener runs in the capture phase, so
     htmx never sees the held submission);
   - a [data-local-time="<hidden field>"] date-time is typed in the browser's time zone: its hidden
     field gets the ISO (UTC) value, its [data-utc] saved value is shown in local time, the
     [data-zone-label] element names the zone and [data-past-warning] shows for a past date;
   - typing in a [data-slug-source] field (a new workspace's name) writes its slug into the form's
     [data-slug-target] field, until that field is typed into itself;
   - Escape closes an open <details class="switcher"> (the workspace switcher) and gives focus
     back to its summary;
   - a [data-linkscope] radio group shows the [data-linkscope-for="<value>"] part of its form
     that its chosen value needs, and the whole group only while its [data-linkscope-trigger]
     checkbox is ticked (the webhook form's link.clicked);
   - Enter in a [data-search-only] field (the webhook form's link search) does not send its form;
   - "Add tag" ([name=op][value=tag]) with no tag chosen is held, and the browser says so at the
     tag's list (the ticked links stay ticked; the server answers the same without JavaScript). */
(function () {
  'use strict';
  function reveal(root) {
    root.querySelectorAll('[data-copy][hidden]').forEach(function (b) { b.hidden = false; });
    root.querySelectorAll('[data-no-js]').forEach(function (b) { b.hidden = true; });
    root.querySelectorAll('[data-needs-js][hidden]').forEach(function (b) { b.hidden = false; });
    root.querySelectorAll('form').forEach(selectionChanged);
    root.querySelectorAll('[data-local-time]').forEach(setUpLocalTime);
  }

  // Date-times in the browser's time zone (the expiry): shown locally, sent as ISO in UTC.
  function two(n) { return (n < 10 ? '0' : '') + n; }
  function localInputValue(d) {
    return d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + 'T' + two(d.getHours()) + ':' + two(d.getMinutes()) + ':' + two(d.getSeconds());
  }
  function setUpLocalTime(input) {
    if (input.hasAttribute('data-local-ready')) return;
    input.setAttribute('data-local-ready', '');
    var saved = input.getAttribute('data-utc');
    var d = saved ? new Date(saved) : null;
    if (d && !isNaN(d.getTime())) input.value = localInputValue(d);
    var label = document.getElementById(input.getAttribute('data-zone-label') || '');
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (label) label.textContent = 'In your time zone' + (zone ? ' (' + zone + ')' : '') + '.';
    syncLocalTime(input);
  }
  function syncLocalTime(input) {
    var hidden = input.form && input.form.elements.namedItem(input.getAttribute('data-local-time'));
    // "YYYY-MM-DDTHH:MM[:SS]" without a zone is local time to Date.
    var d = input.value ? new Date(input.value) : null;
    var valid = d && !isNaN(d.getTime());
    if (hidden) hidden.value = valid ? d.toISOString() : '';
    var warning = document.getElementById(input.getAttribute('data-past-warning') || '');
    if (warning) warning.hidden = !(valid && d.getTime() <= Date.now());
  }
  // Bulk buttons ([data-needs-selection]) stay disabled until a row of their form is ticked.
  function selectionChanged(form) {
    var buttons = form.querySelectorAll('[data-needs-selection]');
    if (!buttons.length) return;
    var any = Array.prototype.some.call(form.elements, function (box) { return box.hasAttribute('data-select') && box.checked; });
    buttons.forEach(function (b) { b.disabled = !any; });
  }
  document.addEventListener('DOMContentLoaded', function () { reveal(document); });
  document.addEventListener('htmx:load', function (e) { reveal(e.target); });

  document.addEventListener('click', function (e) {
    var button = e.target.closest && e.target.closest('[data-copy]');
    if (!button || !navigator.clipboard) return;
    navigator.clipboard.writeText(button.getAttribute('data-copy')).then(function () {
      var label = button.textContent;
      button.textContent = 'Copied';
      setTimeout(function () { button.textContent = label; }, 1500);
    });
  });

  document.addEventListener('change', function (e) {
    var all = e.target.closest && e.target.closest('[data-select-all]');
    if (!all || !all.form) return;
    // form.elements, not querySelectorAll: the row checkboxes join the form by their form="" attribute.
    Array.prototype.forEach.call(all.form.elements, function (box) {
      if (box.hasAttribute('data-select')) box.checked = all.checked;
    });
  });
  document.addEventListener('change', function (e) {
    if (e.target.hasAttribute && e.target.hasAttribute('data-local-time')) syncLocalTime(e.target);
  });
  // A UTM template fills the builder's UTM fields; each field's input event updates the URL.
  document.addEventListener('change', function (e) {
    var picker = e.target;
    if (!picker.hasAttribute || !picker.hasAttribute('data-utm-template')) return;
    var option = picker.options[picker.selectedIndex];
    var form = document.getElementById(picker.getAttribute('data-utm-template'));
    if (!option || !option.value || !form) return;
    form.querySelectorAll('[data-utm]').forEach(function (field) {
      field.value = option.getAttribute('data-' + field.getAttribute('data-utm')) || '';
      field.dispatchEvent(new Event('input', { bubbles: true }));
    });
  });
  document.addEventListener('change', function (e) {
    var box = e.target;
    if (box.form && (box.hasAttribute('data-select') || box.hasAttribute('data-select-all'))) selectionChanged(box.form);
  });

  // Confirmation before delete, revoke and remove: the submission is held, the dialog says what
  // is lost, and only its confirm button sends the form again (with the same submit button).
  var confirmedForm = null;
  document.addEventListener('submit', function (e) {
    var form = e.target;
    var submitter = e.submitter || null;
    var source = submitter && submitter.hasAttribute('data-confirm') ? submitter : form.hasAttribute('data-confirm') ? form : null;
    if (!source) return;
    if (confirmedForm === form) { confirmedForm = null; return; }
    var dialog = document.getElementById('confirm');
    if (!dialog || typeof dialog.showModal !== 'function') return;
    e.preventDefault();
    e.stopImmediatePropagation();
    var ticked = Array.prototype.filter.call(form.elements, function (box) { return box.hasAttribute('data-select') && box.checked; }).length;
    dialog.querySelector('#confirm-text').textContent = source.getAttribute('data-confirm').replace('{count}', String(ticked));
    dialog.querySelector('#confirm-ok').textContent = source.getAttribute('data-confirm-button') || 'Confirm';
    dialog.returnValue = '';
    dialog.addEventListener('close', function () {
      if (dialog.returnValue !== 'confirm') return;
      confirmedForm = form;
      if (submitter) form.requestSubmit(submitter); else form.requestSubmit();
    }, { once: true });
    dialog.showModal();
  }, true);

  document.addEventListener('input', function (e) {
    var field = e.target;
    var form = field.form;
    if (!form) return;
    if (field.hasAttribute('data-local-time')) syncLocalTime(field);
    if (field.hasAttribute('data-slug-target')) field.setAttribute('data-typed', '');
    var slug = field.hasAttribute('data-slug-source') && form.querySelector('[data-slug-target]:not([data-typed])');
    if (slug) {
      // As the server's suggestion (workspaces/service.ts slugify); too short: left empty for the server to make.
      var made = field.value.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40);
      slug.value = made.length >= 3 ? made : '';
    }
    // Typing a preview field turns "Custom link preview" on (it can be unticked again).
    if (field.hasAttribute('data-preview') && field.value.trim()) {
      var proxy = form.querySelector('[name=proxy]');
      if (proxy) proxy.checked = true;
    }
    var target = form.querySelector('[data-utm-target]');
    if (!target) return;
    var url;
    try { url = new URL(target.value); } catch (_) { return; }
    if (field.hasAttribute('data-utm')) {
      var name = field.getAttribute('data-utm');
      if (field.value.trim()) url.searchParams.set(name, field.value.trim());
      else url.searchParams.delete(name);
      target.value = url.href;
    } else if (field === target) {
      form.querySelectorAll('[data-utm]').forEach(function (utm) {
        utm.value = url.searchParams.get(utm.getAttribute('data-utm')) || '';
      });
    }
  });

  document.addEventListener('keydown', function (e) {
    if (e.key !== 'Escape') return;
    document.querySelectorAll('details.switcher[open]').forEach(function (d) {
      d.open = false;
      var summary = d.querySelector('summary');
      if (summary && d.contains(document.activeElement)) summary.focus();
    });
  });

  // A search field inside a form it must not send (the webhook form's link picker): Enter searches, never submits.
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Enter' && e.target.matches && e.target.matches('[data-search-only]')) e.preventDefault();
  });

  // The webhook form: the link picker follows link.clicked and the scope chosen.
  function syncLinkScope(form) {
    var trigger = form.querySelector('[data-linkscope-trigger]');
    var group = form.querySelector('[data-linkscope]');
    if (!trigger || !group) return;
    group.hidden = !trigger.checked;
    var chosen = form.querySelector('[data-linkscope] input[type=radio]:checked');
    form.querySelectorAll('[data-linkscope-for]').forEach(function (part) {
      part.hidden = !chosen || part.getAttribute('data-linkscope-for') !== chosen.value;
    });
  }
  document.addEventListener('change', function (e) {
    if (e.target.form && e.target.form.querySelector('[data-linkscope]')) syncLinkScope(e.target.form);
  });
  function linkScopeForms(root) { root.querySelectorAll('form').forEach(function (f) { if (f.querySelector('[data-linkscope]')) syncLinkScope(f); }); }
  document.addEventListener('DOMContentLoaded', function () { linkScopeForms(document); });
  document.addEventListener('htmx:load', function (e) { linkScopeForms(e.target); });

  document.addEventListener('submit', function (e) {
    var submitter = e.submitter;
    if (!submitter || submitter.name !== 'op' || submitter.value !== 'tag') return;
    var tag = e.target.elements.namedItem('tagId');
    if (!tag || tag.value) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    tag.setCustomValidity('Choose the tag to add.');
    tag.reportValidity();
  }, true);
  document.addEventListener('change', function (e) {
    if (e.target.name === 'tagId' && e.target.setCustomValidity) e.target.setCustomValidity('');
  });
})();

/**
 * The console's only script, served from /console/assets (CSP `script-src 'self'`, no inline
 * script). Progressive enhancement: every page works without it. It turns forms marked
 * `data-confirm` (and level changes to admin) into an in-page dialog, submits a row's level as
 * soon as it is chosen (asking first where `data-confirm-change` says the change has a
 * consequence), narrows the connect form's levels to the chosen service's kind, and copies a
 * `data-copy` button's value (secrets, URLs, a whole .env) to the clipboard, saying so in a toast.
 */
export const CLIENT_SCRIPT = `(() => {
  'use strict';
  const dialog = document.createElement('dialog');
  dialog.setAttribute('aria-labelledby', 'confirm-dialog-title');
  dialog.className = 'dialog';
  const title = document.createElement('h2');
  title.id = 'confirm-dialog-title';
  const note = document.createElement('p');
  note.textContent = 'Nothing changes until you confirm.';
  const actions = document.createElement('div');
  actions.className = 'actions';
  const confirmButton = document.createElement('button');
  confirmButton.type = 'button';
  confirmButton.className = 'danger';
  confirmButton.textContent = 'Confirm';
  const cancelButton = document.createElement('button');
  cancelButton.type = 'button';
  cancelButton.className = 'secondary';
  cancelButton.textContent = 'Cancel';
  actions.append(confirmButton, cancelButton);
  // A form's data-confirm-option (its label) and data-confirm-option-name (the field it sets to
  // "yes" when ticked) add one checkbox to the dialog, unticked each time.
  const option = document.createElement('label');
  option.className = 'check';
  const optionBox = document.createElement('input');
  optionBox.type = 'checkbox';
  const optionText = document.createElement('span');
  option.append(optionBox, ' ', optionText);
  dialog.append(title, note, option, actions);
  let pending = null;

  function questionOf(form) {
    if (form.dataset.confirm) return form.dataset.confirm;
    const level = form.elements.namedItem('level');
    if (form.dataset.confirmChange && level && level.value !== form.dataset.current) {
      return form.dataset.confirmChange.replace('{level}', level.value);
    }
    if (form.dataset.confirmAdmin && level && level.value === 'admin' && form.dataset.current !== 'admin') {
      return form.dataset.confirmAdmin;
    }
    return null;
  }

  function close(confirmed) {
    const form = pending;
    pending = null;
    dialog.close();
    if (!form) return;
    if (confirmed) {
      const field = document.createElement('input');
      field.type = 'hidden';
      field.name = 'confirm';
      field.value = 'yes';
      form.append(field);
      if (!option.hidden && optionBox.checked && form.dataset.confirmOptionName) {
        const ticked = document.createElement('input');
        ticked.type = 'hidden';
        ticked.name = form.dataset.confirmOptionName;
        ticked.value = 'yes';
        form.append(ticked);
      }
      form.submit();
    } else {
      const level = form.elements.namedItem('level');
      if (level && form.dataset.current && level.value !== form.dataset.current) level.value = form.dataset.current;
      const opener = form.querySelector('button, select');
      if (opener) opener.focus();
    }
  }
  confirmButton.addEventListener('click', () => close(true));
  cancelButton.addEventListener('click', () => close(false));
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    close(false);
  });

  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    const question = questionOf(form);
    if (!question) return;
    event.preventDefault();
    pending = form;
    title.textContent = question;
    option.hidden = !form.dataset.confirmOption;
    optionBox.checked = false;
    optionText.textContent = form.dataset.confirmOption || '';
    if (!dialog.isConnected) document.body.append(dialog);
    dialog.showModal();
    cancelButton.focus();
  });

  document.addEventListener('change', (event) => {
    const target = event.target;
    if (!(target instanceof HTMLSelectElement)) return;
    if (target.dataset.autosubmit !== undefined && target.form) {
      target.form.requestSubmit();
      return;
    }
    if (target.dataset.narrows) narrowLevels(target);
  });

  function narrowLevels(service) {
    const levels = document.getElementById(service.dataset.narrows);
    if (!levels) return;
    const chosen = service.selectedOptions[0];
    const kind = chosen ? chosen.dataset.kind : undefined;
    for (const option of levels.options) {
      const fits = !option.dataset.kind || !kind || option.dataset.kind === kind;
      option.hidden = !fits;
      option.disabled = !fits;
    }
    if (levels.selectedOptions[0] && levels.selectedOptions[0].disabled) levels.value = '';
  }
  for (const service of document.querySelectorAll('select[data-narrows]')) narrowLevels(service);
  for (const button of document.querySelectorAll('[data-enhanced-hide]')) button.hidden = true;

  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
    if (!button || !navigator.clipboard) return;
    // The button keeps its name (tests and screen readers find it by it); a toast says it worked.
    navigator.clipboard.writeText(button.dataset.copy).then(() => {
      let toast = document.getElementById('copy-status');
      if (!toast) {
        toast = document.createElement('p');
        toast.id = 'copy-status';
        toast.className = 'toast';
        toast.setAttribute('role', 'status');
        document.body.append(toast);
      }
      const what = (button.getAttribute('aria-label') || button.textContent).replace(/^Copy (value of )?/, '');
      toast.textContent = 'Copied ' + what;
      toast.hidden = false;
      button.classList.add('copied');
      clearTimeout(toast.timer);
      toast.timer = setTimeout(() => {
        toast.hidden = true;
        button.classList.remove('copied');
      }, 2500);
    });
  });
})();
`;

// Shared by the dashboard and the invite page: a 422 answer's `details` (Mastodon's shape,
// { field: [{ error, description }] }) shown under each field, in the element with the id
// `<prefix>-<field>-error`; the messages of the last try are hidden first.
(function () {
  'use strict';
  window.showFieldErrors = function (prefix, details) {
    document.querySelectorAll('[id^="' + prefix + '-"].field-error').forEach(function (p) {
      p.hidden = true;
    });
    Object.keys(details || {}).forEach(function (field) {
      var target = document.getElementById(prefix + '-' + field + '-error');
      if (!target) return;
      target.textContent = details[field]
        .map(function (d) {
          return d.description;
        })
        .join(', ');
      target.hidden = false;
    });
  };
})();

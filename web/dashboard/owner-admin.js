// The owner's administration of the instance on the dashboard: the first run's owner account, the
// instance's identity and public address, invites and reports. Built by dashboard.js with its
// login and API helpers, so the session stays in one place.
window.nestboxOwnerAdmin = function (core) {
  'use strict';
  var API = core.API;
  var CLIENT_KEY = core.CLIENT_KEY;
  var $ = core.$;
  var api = core.api;
  var json = core.json;
  var showError = core.showError;
  var useToken = core.useToken;
  var logout = core.logout;

  // ── first run: the owner account ─────────────────────────────────────────────────────────

  // While the box has no owner the owner API answers the onboarding (404 afterwards).
  function checkOnboarding() {
    return fetch(API + '/onboarding', { cache: 'no-store', headers: { Accept: 'application/json' } })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .catch(function () {
        return null;
      });
  }

  function showOnboarding(onboarding) {
    $('login').hidden = true;
    $('onboarding').hidden = false;
    $('owner-key-field').hidden = !onboarding.setup_key_needed;
    $('owner-username').focus();
  }

  function createOwner(event) {
    event.preventDefault();
    var form = $('owner-form');
    var body = {};
    ['username', 'display_name', 'email', 'password', 'setup_key'].forEach(function (name) {
      body[name] = form.elements[name].value;
    });
    $('owner-create').disabled = true;
    // A message left from the last try would read as this try's answer.
    showError('owner-error', null);
    fetch(API + '/onboarding/owner', json('POST', body))
      .then(function (response) {
        return response
          .json()
          .catch(function () {
            return {};
          })
          .then(function (answer) {
            if (response.status === 404) throw new Error('This box has an owner already: log in instead.');
            if (!response.ok) {
              showFieldErrors('owner', answer.details);
              throw new Error(
                response.status === 422
                  ? 'Please correct the fields marked above.'
                  : answer.error || 'HTTP ' + response.status
              );
            }
            return answer;
          });
      })
      .then(function (answer) {
        showError('owner-error', null);
        localStorage.setItem(
          CLIENT_KEY,
          JSON.stringify({ client_id: answer.client_id, client_secret: answer.client_secret })
        );
        $('onboarding').hidden = true;
        useToken(answer.access_token);
      })
      .catch(function (error) {
        showError('owner-error', error);
        if (/owner already/.test(error.message)) logout();
      })
      .then(function () {
        $('owner-create').disabled = false;
      });
  }

  // ── the instance's identity and public address ──────────────────────────────────────────

  function showInstance(instance) {
    $('instance-title').value = instance.title;
    $('instance-description').value = instance.short_description;
    $('instance-language').value = instance.language;
    $('instance-contact').value = instance.contact_username || '';
    $('base-url').value = instance.base_url;
    $('base-url-restart').hidden = !instance.restart_needed;
  }

  function loadInstance() {
    return fetch('/api/v1/instance/languages', { cache: 'no-store' })
      .then(function (r) {
        return r.json();
      })
      .then(function (languages) {
        var select = $('instance-language');
        select.textContent = '';
        languages.forEach(function (language) {
          var option = document.createElement('option');
          option.value = language.code;
          option.textContent = language.name + ' (' + language.code + ')';
          select.appendChild(option);
        });
        return api('/instance');
      })
      .then(showInstance)
      .catch(function (e) {
        showError('instance-error', e);
      });
  }

  function saveInstance(event) {
    event.preventDefault();
    $('instance-saved').hidden = true;
    api(
      '/instance',
      json('PUT', {
        title: $('instance-title').value,
        short_description: $('instance-description').value,
        language: $('instance-language').value,
        contact_username: $('instance-contact').value,
      })
    ).then(
      function (instance) {
        showFieldErrors('instance', null);
        showError('instance-error', null);
        showInstance(instance);
        $('instance-saved').hidden = false;
      },
      function (e) {
        showFieldErrors('instance', e.details);
        showError('instance-error', e);
      }
    );
  }

  function saveAddress(event) {
    event.preventDefault();
    api('/instance/base_url', json('PUT', { base_url: $('base-url').value })).then(
      function (instance) {
        showError('address-error', null);
        showInstance(instance);
        checkAddress();
      },
      function (e) {
        showError('address-error', e);
      }
    );
  }

  function checkAddress() {
    $('check-address').disabled = true;
    $('reach-summary').textContent = 'Checking…';
    $('reachability').hidden = false;
    api('/instance/reachability', json('POST', { url: $('base-url').value }))
      .then(
        function (report) {
          showError('address-error', null);
          $('reachability').dataset.ready = String(report.federation_ready);
          $('reach-summary').textContent = report.summary;
          var list = $('reach-advice');
          list.textContent = '';
          report.advice.forEach(function (text) {
            var li = document.createElement('li');
            li.textContent = text;
            list.appendChild(li);
          });
          $('reach-note').textContent = report.note;
        },
        function (e) {
          $('reachability').hidden = true;
          showError('address-error', e);
        }
      )
      .then(function () {
        $('check-address').disabled = false;
      });
  }

  // ── invites ──────────────────────────────────────────────────────────────────────────────

  var INVITE_STATES = { usable: 'active', expired: 'expired', used_up: 'used up' };

  function inviteItem(invite) {
    var li = document.createElement('li');
    li.className = 'invite';
    li.dataset.state = invite.state;
    var link = document.createElement('input');
    link.readOnly = true;
    link.value = invite.url;
    link.className = 'invite-url';
    link.setAttribute('aria-label', 'Invite link');
    var facts = document.createElement('span');
    facts.className = 'hint';
    facts.textContent =
      ' ' +
      INVITE_STATES[invite.state] +
      ' · used ' +
      invite.uses +
      (invite.max_uses === null ? '' : ' of ' + invite.max_uses) +
      (invite.expires_at ? ' · until ' + new Date(invite.expires_at).toLocaleString() : ' · no expiry');
    li.appendChild(link);
    li.appendChild(facts);
    if (invite.state === 'usable') {
      var end = document.createElement('button');
      end.type = 'button';
      end.textContent = 'Expire';
      end.addEventListener('click', function () {
        api('/invites/' + invite.id, { method: 'DELETE' }).then(loadInvites, function (e) {
          showError('invite-error', e);
        });
      });
      li.appendChild(end);
    }
    return li;
  }

  function loadInvites() {
    return Promise.all([api('/invites'), api('/invites/accounts')]).then(
      function (answers) {
        var list = $('invites');
        list.textContent = '';
        answers[0].forEach(function (invite) {
          list.appendChild(inviteItem(invite));
        });
        var joined = $('invited');
        joined.textContent = '';
        answers[1].forEach(function (account) {
          var li = document.createElement('li');
          li.textContent =
            '@' +
            account.username +
            (account.display_name ? ' (' + account.display_name + ')' : '') +
            ' · joined ' +
            new Date(account.created_at).toLocaleDateString();
          joined.appendChild(li);
        });
        if (!answers[1].length) joined.innerHTML = '<li class="hint">Nobody yet.</li>';
      },
      function (e) {
        showError('invite-error', e);
      }
    );
  }

  function createInvite(event) {
    event.preventDefault();
    var expires = $('invite-expires').value;
    var uses = $('invite-uses').value;
    api(
      '/invites',
      json('POST', { expires_in: expires ? Number(expires) : null, max_uses: uses ? Number(uses) : null })
    ).then(
      function () {
        showError('invite-error', null);
        return loadInvites();
      },
      function (e) {
        showError('invite-error', e);
      }
    );
  }

  // ── reports ───────────────────────────────────────────────────────────────────────────────

  function acctOf(admin) {
    return '@' + admin.username + (admin.domain ? '@' + admin.domain : '');
  }

  function reportItem(report) {
    var li = document.createElement('li');
    li.className = 'report';
    var what = document.createElement('p');
    what.textContent =
      acctOf(report.target_account) +
      ', reported by ' +
      acctOf(report.account) +
      ' · ' +
      report.category +
      ' · ' +
      new Date(report.created_at).toLocaleString();
    li.appendChild(what);
    if (report.comment) {
      var comment = document.createElement('blockquote');
      comment.textContent = report.comment;
      li.appendChild(comment);
    }
    report.statuses.forEach(function (status) {
      var post = document.createElement('a');
      post.href = status.url || status.uri;
      post.textContent = 'Reported post of ' + new Date(status.created_at).toLocaleString();
      post.className = 'report-post';
      li.appendChild(post);
    });
    var resolve = document.createElement('button');
    resolve.type = 'button';
    resolve.textContent = 'Mark as handled';
    resolve.addEventListener('click', function () {
      api('/api/v1/admin/reports/' + report.id + '/resolve', { method: 'POST' }).then(loadReports, function (e) {
        showError('reports-error', e);
      });
    });
    li.appendChild(resolve);
    return li;
  }

  function loadReports() {
    return api('/api/v1/admin/reports?limit=40').then(
      function (reports) {
        showError('reports-error', null);
        var list = $('report-list');
        list.textContent = '';
        reports.forEach(function (report) {
          list.appendChild(reportItem(report));
        });
        if (!reports.length) list.innerHTML = '<li class="hint">No open reports.</li>';
      },
      function (e) {
        showError('reports-error', e);
      }
    );
  }

  return {
    checkOnboarding: checkOnboarding,
    showOnboarding: showOnboarding,
    createOwner: createOwner,
    loadInstance: loadInstance,
    saveInstance: saveInstance,
    saveAddress: saveAddress,
    checkAddress: checkAddress,
    loadInvites: loadInvites,
    createInvite: createInvite,
    loadReports: loadReports,
  };
};

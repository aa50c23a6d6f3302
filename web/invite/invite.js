// Sign-up through an invite link: Mastodon's own steps (an app, its client token, then
// POST /api/v1/accounts with invite_code), so the account is made exactly as an app would make it.
(function () {
  'use strict';
  var SCOPES = 'read write follow push';
  var code = decodeURIComponent(location.pathname.split('/').pop());
  var $ = function (id) {
    return document.getElementById(id);
  };

  function post(path, body, token) {
    var headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (token) headers.Authorization = 'Bearer ' + token;
    return fetch(path, { method: 'POST', headers: headers, body: JSON.stringify(body) }).then(function (response) {
      return response
        .json()
        .catch(function () {
          return {};
        })
        .then(function (answer) {
          if (response.ok) return answer;
          var error = new Error(answer.error_description || answer.error || 'HTTP ' + response.status);
          error.details = answer.details;
          throw error;
        });
    });
  }

  fetch('/api/v1/instance', { headers: { Accept: 'application/json' } })
    .then(function (r) {
      return r.json();
    })
    .then(function (instance) {
      $('invite-title').textContent = 'You are invited to ' + instance.title;
      document.title = $('invite-title').textContent;
    })
    .catch(function () {
      /* the plain title stays */
    });

  $('signup-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var form = $('signup-form');
    var username = form.elements.username.value.trim();
    $('signup-create').disabled = true;
    post('/api/v1/apps', { client_name: 'Nestbox invite', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: SCOPES })
      .then(function (app) {
        return post('/oauth/token', {
          grant_type: 'client_credentials',
          client_id: app.client_id,
          client_secret: app.client_secret,
          scope: SCOPES,
        });
      })
      .then(function (client) {
        return post(
          '/api/v1/accounts',
          {
            username: username,
            email: form.elements.email.value.trim(),
            password: form.elements.password.value,
            agreement: form.elements.agreement.checked,
            locale: (navigator.language || 'en').slice(0, 2),
            invite_code: code,
          },
          client.access_token
        );
      })
      .then(function () {
        showFieldErrors('signup', null);
        $('signup').hidden = true;
        $('welcome').hidden = false;
        $('welcome-title').textContent = 'Welcome, @' + username + '!';
        $('welcome-text').textContent =
          'Your account is ready. In a Mastodon app, choose the server ' +
          location.host +
          ' and sign in with your e-mail and password.';
        $('welcome-profile').href = '/@' + encodeURIComponent(username);
      })
      .catch(function (error) {
        showFieldErrors('signup', error.details);
        var invite = error.details && error.details.invite_code;
        $('signup-error').textContent = invite
          ? 'This invite link ' + invite[0].description + '. Ask whoever sent it for a new one.'
          : error.details
            ? 'Please correct the fields marked above.'
            : error.message;
        $('signup-error').hidden = false;
      })
      .then(function () {
        $('signup-create').disabled = false;
      });
  });
})();

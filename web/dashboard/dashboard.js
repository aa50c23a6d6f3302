// Nestbox owner's dashboard: logs in through the instance's OAuth (authorization code with PKCE),
// then shows the device state live (server-sent events) and drives the owner API.
(function () {
  'use strict';
  var API = '/api/nestbox/v1';
  var TOKEN_KEY = 'nestbox.dashboard.token';
  var OAUTH_KEY = 'nestbox.dashboard.oauth';
  var CLIENT_KEY = 'nestbox.dashboard.client'; // the app that holds the token, to revoke it at log-out
  var SCOPES = 'admin:read admin:write';
  var $ = function (id) {
    return document.getElementById(id);
  };
  var token = localStorage.getItem(TOKEN_KEY);
  var stream = null;
  /** Radio controls the owner has changed and not yet applied: live state must not overwrite them. */
  var pendingEdit = { tx: false, ps: false };
  var redirectUri = location.origin + '/dashboard/';
  var words = window.nestboxStateWords;
  var admin = window.nestboxOwnerAdmin({
    API: API,
    CLIENT_KEY: CLIENT_KEY,
    $: $,
    api: api,
    json: json,
    showError: showError,
    useToken: useToken,
    logout: logout,
  });

  function api(path, options) {
    options = options || {};
    var headers = Object.assign(
      { Accept: 'application/json', Authorization: 'Bearer ' + token },
      options.headers || {}
    );
    // The appliance API by default; a Mastodon API path (the admin reports) as it is.
    var url = path.indexOf('/api/v1/') === 0 ? path : API + path;
    return fetch(url, Object.assign({}, options, { headers: headers, cache: 'no-store' })).then(function (response) {
      return response
        .json()
        .catch(function () {
          return {};
        })
        .then(function (body) {
          if (response.status === 401) {
            logout();
            throw new Error('Please log in again');
          }
          if (!response.ok) {
            var error = new Error(body.error || 'HTTP ' + response.status);
            error.details = body.details; // per field, for the forms
            throw error;
          }
          return body;
        });
    });
  }

  function json(method, body) {
    return { method: method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  }

  function showError(id, error) {
    $(id).textContent = error ? error.message || String(error) : '';
    $(id).hidden = !error;
  }

  // ── login ─────────────────────────────────────────────────────────────────────────────────

  function base64url(bytes) {
    return btoa(String.fromCharCode.apply(null, new Uint8Array(bytes)))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  }

  function startOAuth() {
    var verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
    var state = base64url(crypto.getRandomValues(new Uint8Array(16)));
    fetch(
      '/api/v1/apps',
      json('POST', { client_name: 'Nestbox dashboard', redirect_uris: redirectUri, scopes: SCOPES })
    )
      .then(function (r) {
        if (!r.ok) throw new Error('This box cannot register the dashboard for login (HTTP ' + r.status + ')');
        return r.json();
      })
      .then(function (app) {
        return crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)).then(function (digest) {
          sessionStorage.setItem(
            OAUTH_KEY,
            JSON.stringify({
              client_id: app.client_id,
              client_secret: app.client_secret,
              verifier: verifier,
              state: state,
            })
          );
          location.href =
            '/oauth/authorize?' +
            new URLSearchParams({
              response_type: 'code',
              client_id: app.client_id,
              redirect_uri: redirectUri,
              scope: SCOPES,
              state: state,
              code_challenge: base64url(digest),
              code_challenge_method: 'S256',
            });
        });
      })
      .catch(function (error) {
        showError('login-error', error);
      });
  }

  // The instance answers on the redirect URI with either ?code= or ?error= (a refusal, a non-owner).
  function finishOAuth(answer) {
    var pending = JSON.parse(sessionStorage.getItem(OAUTH_KEY) || 'null');
    var code = answer.get('code');
    sessionStorage.removeItem(OAUTH_KEY);
    history.replaceState(null, '', redirectUri);
    if (!pending || pending.state !== answer.get('state'))
      return Promise.reject(new Error('The login answer does not match the request; try again'));
    if (answer.get('error') === 'access_denied' && /owner/.test(answer.get('error_description') || '')) {
      return Promise.reject(
        new Error(
          'This account is not the box owner’s: only the box owner can use the dashboard. Log in with the owner’s account.'
        )
      );
    }
    if (!code)
      return Promise.reject(
        new Error('Login refused: ' + (answer.get('error_description') || answer.get('error') || 'no code'))
      );
    return fetch(
      '/oauth/token',
      json('POST', {
        grant_type: 'authorization_code',
        code: code,
        client_id: pending.client_id,
        client_secret: pending.client_secret,
        redirect_uri: redirectUri,
        code_verifier: pending.verifier,
        scope: SCOPES,
      })
    ).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error_description || body.error || 'Login failed');
        localStorage.setItem(
          CLIENT_KEY,
          JSON.stringify({ client_id: pending.client_id, client_secret: pending.client_secret })
        );
        return body.access_token;
      });
    });
  }

  function useToken(value) {
    token = value;
    localStorage.setItem(TOKEN_KEY, value);
    start();
  }

  // Tokens never expire, so logging out revokes the one this page got (a pasted one is only forgotten).
  function logout() {
    var client = JSON.parse(localStorage.getItem(CLIENT_KEY) || 'null');
    if (token && client) {
      fetch(
        '/oauth/revoke',
        json('POST', { client_id: client.client_id, client_secret: client.client_secret, token: token })
      ).catch(function () {
        /* offline: forget it anyway */
      });
    }
    localStorage.removeItem(CLIENT_KEY);
    localStorage.removeItem(TOKEN_KEY);
    token = null;
    if (stream) stream.close();
    $('app').hidden = true;
    $('logout').hidden = true;
    $('login').hidden = false;
  }

  // ── state ─────────────────────────────────────────────────────────────────────────────────

  // The network layer's own words (a missing interface, no DHCP answer, …) come from /healthz.
  var networkHealthAt = 0;
  function refreshNetworkHealth() {
    if (Date.now() - networkHealthAt < 2000) return;
    networkHealthAt = Date.now();
    fetch('/healthz', { cache: 'no-store' })
      .then(function (response) {
        return response.json();
      })
      .then(function (report) {
        var network = report.components && report.components.network;
        var line = $('network-health');
        line.hidden = !network || network.status === 'off';
        if (!network) return;
        line.dataset.status = network.status;
        line.textContent =
          'Network: ' + (network.status === 'degraded' ? 'problem — ' : '') + (network.detail || network.status);
      })
      .catch(function () {
        /* the state stream says when the box is gone */
      });
  }

  // An instance without a box (NESTBOX_COPROC=none): no Wi-Fi, setup mode, radio or firmware to show.
  var deviceLoaded = false;
  function showDeviceSections(present) {
    $('no-box').hidden = present;
    document.querySelectorAll('section.device').forEach(function (section) {
      section.hidden = !present;
    });
    if (!present || deviceLoaded) return;
    deviceLoaded = true;
    loadNetworks();
    api('/setup_ap').then(
      function (ap) {
        $('ap-ssid').textContent = ap.ssid;
        $('ap-key').textContent = ap.passphrase;
      },
      function () {
        $('ap-ssid').textContent = 'not available';
      }
    );
  }

  function renderState(state) {
    var wifi = state.wifi,
      softap = state.softap,
      cop = state.coprocessor;
    var net = state.network;
    $('summary').textContent =
      state.connectivity === 'connected'
        ? 'Online via “' +
          wifi.ssid +
          '”' +
          (wifi.rssi != null ? ' (' + wifi.rssi + ' dBm)' : '') +
          (net ? ' at ' + net.address.split('/')[0] : '')
        : words.SUMMARY[state.connectivity] || state.connectivity;
    $('summary').dataset.state = state.connectivity;
    showError('state-error', state.error ? new Error(state.error) : null);
    var facts = words.facts(state);
    showDeviceSections(state.connectivity !== 'no_device');
    refreshNetworkHealth();
    // Setup mode is offered only when it is not on already.
    var inSetup = softap.active || state.connectivity === 'setup_ap';
    $('setup-mode').hidden = inSetup;
    $('setup-mode-on').hidden = !inSetup;
    showError(
      'release-warning',
      cop.release && cop.release.status === 'mismatch' ? new Error(cop.release.detail) : null
    );
    showError(
      'storage-warning',
      state.storage && state.storage.detail ? new Error('Storage: ' + state.storage.detail) : null
    );
    var dl = $('facts');
    dl.textContent = '';
    facts.forEach(function (pair) {
      var dt = document.createElement('dt');
      dt.textContent = pair[0];
      var dd = document.createElement('dd');
      dd.textContent = String(pair[1]);
      dl.appendChild(dt);
      dl.appendChild(dd);
    });
    // A value the owner has changed but not yet applied is kept; live updates fill the rest.
    if (!pendingEdit.tx && document.activeElement !== $('tx') && cop.tx_power_dbm != null)
      $('tx').value = cop.tx_power_dbm;
    if (!pendingEdit.ps && document.activeElement !== $('ps') && cop.power_save) $('ps').value = cop.power_save;
    var ota = cop.ota;
    if (ota.phase !== 'idle') {
      $('ota-progress').hidden = false;
      $('ota-progress').value = ota.percent;
      $('ota-text').textContent =
        ota.phase === 'failed'
          ? 'Update failed: ' + ota.error
          : ota.phase === 'writing'
            ? 'Writing to the coprocessor: ' + ota.percent + ' %'
            : ota.phase === 'rebooting'
              ? 'Written; the coprocessor restarts…'
              : 'Update done.';
    }
  }

  function openStream() {
    if (stream) stream.close();
    stream = new EventSource(API + '/stream?access_token=' + encodeURIComponent(token));
    stream.addEventListener('state', function (event) {
      renderState(JSON.parse(event.data));
    });
    stream.onerror = function () {
      $('summary').textContent = 'Connection to the box lost; retrying…';
    };
  }

  // ── networks ──────────────────────────────────────────────────────────────────────────────

  function renderNetworks(list) {
    var ol = $('networks');
    ol.textContent = '';
    list.forEach(function (network, index) {
      var li = document.createElement('li');
      var name = document.createElement('span');
      name.textContent =
        network.ssid +
        (network.hidden ? ' (hidden)' : '') +
        (network.password_refused ? ' — password refused, enter it again' : '');
      li.appendChild(name);
      var ids = list.map(function (n) {
        return n.id;
      });
      [
        ['↑', index - 1],
        ['↓', index + 1],
      ].forEach(function (move) {
        if (move[1] < 0 || move[1] >= list.length) return;
        var button = document.createElement('button');
        button.type = 'button';
        button.textContent = move[0];
        button.setAttribute('aria-label', 'Move ' + network.ssid + (move[0] === '↑' ? ' up' : ' down'));
        button.addEventListener('click', function () {
          var order = ids.slice();
          order.splice(index, 1);
          order.splice(move[1], 0, network.id);
          api('/networks/order', json('PUT', { ids: order })).then(renderNetworks, function (e) {
            showError('networks-error', e);
          });
        });
        li.appendChild(button);
      });
      var remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Remove';
      remove.addEventListener('click', function () {
        if (!confirm('Forget “' + network.ssid + '”?')) return;
        api('/networks/' + network.id, { method: 'DELETE' }).then(loadNetworks, function (e) {
          showError('networks-error', e);
        });
      });
      li.appendChild(remove);
      ol.appendChild(li);
    });
  }

  function loadNetworks() {
    return api('/networks').then(renderNetworks, function (e) {
      showError('networks-error', e);
    });
  }

  // ── firmware ──────────────────────────────────────────────────────────────────────────────

  function uploadFirmware(file) {
    var xhr = new XMLHttpRequest();
    xhr.open('POST', API + '/firmware' + ($('ota-force').checked ? '?force=true' : ''));
    xhr.setRequestHeader('Authorization', 'Bearer ' + token);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    $('ota-progress').hidden = false;
    xhr.upload.onprogress = function (event) {
      if (!event.lengthComputable) return;
      var percent = Math.round((event.loaded / event.total) * 100);
      $('ota-progress').value = percent;
      $('ota-text').textContent = 'Uploading to the box: ' + percent + ' %';
    };
    xhr.onload = function () {
      var body = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch (e) {
        /* not JSON */
      }
      $('ota-text').textContent =
        xhr.status === 202 ? 'Uploaded; writing to the coprocessor…' : 'Upload refused: ' + (body.error || xhr.status);
    };
    xhr.onerror = function () {
      $('ota-text').textContent = 'Upload failed: the box could not be reached';
    };
    xhr.send(file);
  }

  // ── wiring ────────────────────────────────────────────────────────────────────────────────

  function start() {
    $('login').hidden = true;
    $('app').hidden = false;
    $('logout').hidden = false;
    // The device's sections load with the first state, which says whether there is a device.
    openStream();
    admin.loadInstance();
    admin.loadInvites();
    admin.loadReports();
  }

  $('oauth-login').addEventListener('click', startOAuth);
  $('token-form').addEventListener('submit', function (event) {
    event.preventDefault();
    if ($('token').value.trim()) useToken($('token').value.trim());
  });
  $('logout').addEventListener('click', logout);
  $('owner-form').addEventListener('submit', admin.createOwner);
  $('instance-form').addEventListener('submit', admin.saveInstance);
  $('invite-form').addEventListener('submit', admin.createInvite);
  $('address-form').addEventListener('submit', admin.saveAddress);
  $('check-address').addEventListener('click', admin.checkAddress);
  $('add-network').addEventListener('submit', function (event) {
    event.preventDefault();
    api(
      '/networks',
      json('POST', { ssid: $('new-ssid').value, password: $('new-password').value, hidden: $('new-hidden').checked })
    )
      .then(function () {
        $('new-ssid').value = '';
        $('new-password').value = '';
        showError('networks-error', null);
        return loadNetworks();
      })
      .catch(function (e) {
        showError('networks-error', e);
      });
  });
  $('setup-mode').addEventListener('click', function () {
    api('/setup_mode', { method: 'POST' }).catch(function (e) {
      alert(e.message);
    });
  });
  $('tx').addEventListener('input', function () {
    pendingEdit.tx = true;
  });
  $('ps').addEventListener('change', function () {
    pendingEdit.ps = true;
  });
  $('tx-form').addEventListener('submit', function (event) {
    event.preventDefault();
    api('/tx_power', json('PUT', { dbm: Number($('tx').value) })).then(
      function () {
        pendingEdit.tx = false;
        showError('radio-error', null);
      },
      function (e) {
        showError('radio-error', e);
      }
    );
  });
  $('ps-form').addEventListener('submit', function (event) {
    event.preventDefault();
    api('/power_save', json('PUT', { mode: $('ps').value })).then(
      function () {
        pendingEdit.ps = false;
        showError('radio-error', null);
      },
      function (e) {
        showError('radio-error', e);
      }
    );
  });
  $('ota-form').addEventListener('submit', function (event) {
    event.preventDefault();
    if ($('ota-file').files[0]) uploadFirmware($('ota-file').files[0]);
  });

  var params = new URLSearchParams(location.search);
  if (params.get('code') || params.get('error')) {
    finishOAuth(params).then(useToken, function (error) {
      logout();
      showError('login-error', error);
    });
  } else if (token) start();
  else {
    logout();
    admin.checkOnboarding().then(function (onboarding) {
      if (onboarding && onboarding.owner_needed) admin.showOnboarding(onboarding);
    });
  }
})();

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

  // ── state ─────────────────────────────────────────────────────────────────────────────────

  var SUMMARY = {
    starting: 'Starting…',
    connecting: 'Joining the Wi-Fi network…',
    reconnecting: 'Connection lost, reconnecting…',
    setup_ap: 'Waiting to be set up: the setup network is open',
    device_lost: 'The Wi-Fi chip does not answer',
  };
  var CONNECTIVITY = {
    starting: 'starting',
    connecting: 'joining the network',
    connected: 'online',
    reconnecting: 'reconnecting',
    setup_ap: 'waiting to be set up',
    device_lost: 'the Wi-Fi chip does not answer',
  };

  function phonesText(count) {
    return count === 0 ? 'no phone on it' : count === 1 ? '1 phone on it' : count + ' phones on it';
  }

  // The setup network in plain words: once the box is online it only waits for nobody to use it.
  function describeSetupNetwork(state) {
    var softap = state.softap;
    if (!softap.active) return 'closed';
    if (state.connectivity === 'connected')
      return 'open until nobody uses it (' + phonesText(softap.stations.length) + ')';
    return 'open' + (softap.reason ? ': ' + softap.reason : '') + ' (' + phonesText(softap.stations.length) + ')';
  }

  function describeStorage(storage) {
    if (!storage || storage.free_bytes == null) return '—';
    var mb = function (bytes) {
      return Math.round(bytes / 1048576) + ' MB';
    };
    return (
      mb(storage.free_bytes) +
      ' free of ' +
      mb(storage.total_bytes) +
      (storage.status === 'ok' ? '' : ' (' + storage.status + ')')
    );
  }

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

  function describeRelease(release) {
    if (!release || release.status === 'off') return 'not checked';
    if (release.status === 'match') return release.firmware + ' (same as the driver)';
    if (release.status === 'mismatch') return release.firmware + ', driver ' + release.driver + ': mismatch';
    return 'unknown (driver ' + release.driver + ')';
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
        : SUMMARY[state.connectivity] || state.connectivity;
    $('summary').dataset.state = state.connectivity;
    showError('state-error', state.error ? new Error(state.error) : null);
    var facts = [
      ['Connection', CONNECTIVITY[state.connectivity] || state.connectivity],
      ['Network', wifi.ssid || '—'],
      ['Channel', wifi.channel == null ? '—' : wifi.channel],
      ['MAC', wifi.mac || '—'],
      ['Setup network', describeSetupNetwork(state)],
      ['Link', cop.link],
      [
        'Last heartbeat',
        cop.last_heartbeat
          ? new Date(cop.last_heartbeat).toLocaleTimeString() + ' (#' + cop.heartbeat_number + ')'
          : '—',
      ],
      ['Transmit power', cop.tx_power_dbm == null ? '—' : cop.tx_power_dbm + ' dBm'],
      ['Power save', cop.power_save || '—'],
      [
        'Coprocessor resets',
        cop.resets +
          (cop.last_reset
            ? ' (last ' +
              new Date(cop.last_reset.at).toLocaleString() +
              ': ' +
              (cop.last_reset.ok ? cop.last_reset.reason : 'failed, ' + cop.last_reset.error) +
              ')'
            : ''),
      ],
      ['Firmware release', describeRelease(cop.release)],
      ['Storage', describeStorage(state.storage)],
      ['IP address', net ? net.address : '—'],
      ['Gateway', net && net.gateway ? net.gateway : '—'],
      ['DNS servers', net && net.dns.length ? net.dns.join(', ') : '—'],
      ['Lease until', net && net.lease_expires_at ? new Date(net.lease_expires_at).toLocaleString() : '—'],
    ];
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
    openStream();
    loadNetworks();
    loadInstance();
    loadInvites();
    loadReports();
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

  $('oauth-login').addEventListener('click', startOAuth);
  $('token-form').addEventListener('submit', function (event) {
    event.preventDefault();
    if ($('token').value.trim()) useToken($('token').value.trim());
  });
  $('logout').addEventListener('click', logout);
  $('owner-form').addEventListener('submit', createOwner);
  $('instance-form').addEventListener('submit', saveInstance);
  $('invite-form').addEventListener('submit', createInvite);
  $('address-form').addEventListener('submit', saveAddress);
  $('check-address').addEventListener('click', checkAddress);
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
    checkOnboarding().then(function (onboarding) {
      if (onboarding && onboarding.owner_needed) showOnboarding(onboarding);
    });
  }
})();

// Nestbox setup portal: scan list, manual entry, and a result that survives the phone losing
// the setup network at the moment the box joins the home network (one radio, one channel).
(function () {
  'use strict';
  var PENDING_KEY = 'nestbox.setup.pending';
  var $ = function (id) {
    return document.getElementById(id);
  };
  var chosen = null; // { ssid, ssid_hex, security } from the scan list, or null for manual entry
  var pollTimer = null;
  var failures = 0;
  var retyping = null; // the network last submitted ({ ssid, hidden }), to type its password again

  var STATE_WORDS = {
    starting: 'The box is starting.',
    connecting: 'The box is joining the network.',
    connected: 'The box is online.',
    reconnecting: 'The box is reconnecting.',
    setup_ap: 'The box is waiting for you to choose its network.',
    device_lost: "The box's Wi-Fi chip does not answer.",
  };

  function show(section) {
    ['choose', 'join', 'result'].forEach(function (id) {
      $(id).hidden = id !== section;
    });
  }

  function api(path, options) {
    return fetch(
      path,
      Object.assign({ cache: 'no-store', headers: { Accept: 'application/json' } }, options || {})
    ).then(function (response) {
      return response
        .json()
        .catch(function () {
          return {};
        })
        .then(function (body) {
          if (!response.ok) {
            var error = new Error(body.error || 'HTTP ' + response.status);
            error.status = response.status;
            error.body = body;
            throw error;
          }
          return body;
        });
    });
  }

  function bars(rssi) {
    var level = rssi >= -55 ? 4 : rssi >= -65 ? 3 : rssi >= -75 ? 2 : 1;
    return '▂▄▆█'.slice(0, level) + '····'.slice(level);
  }

  function securityLabel(security) {
    if (security === 'open') return 'open';
    if (security.indexOf('wpa3') >= 0) return '🔒 WPA3';
    if (security.indexOf('wpa2') >= 0) return '🔒 WPA2';
    if (security.indexOf('wpa') >= 0) return '🔒 WPA';
    if (security === 'wep') return '🔒 WEP';
    return '🔒';
  }

  function renderNetworks(list) {
    var ul = $('networks');
    ul.textContent = '';
    if (!list.length) {
      var empty = document.createElement('li');
      empty.className = 'muted';
      empty.textContent = 'No network found. Scan again, or enter one by hand.';
      ul.appendChild(empty);
      return;
    }
    list.forEach(function (network) {
      var li = document.createElement('li');
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'network';
      var name = document.createElement('span');
      name.className = 'name';
      name.textContent = network.ssid; // text, never HTML: names may hold any character
      var meta = document.createElement('span');
      meta.className = 'meta';
      meta.innerHTML = '<span class="bars" aria-hidden="true"></span> <span class="sec"></span>';
      meta.querySelector('.bars').textContent = bars(network.rssi);
      meta.querySelector('.sec').textContent = securityLabel(network.security) + ' · ' + network.rssi + ' dBm';
      button.setAttribute(
        'aria-label',
        network.ssid + ', ' + securityLabel(network.security) + ', signal ' + network.rssi + ' dBm'
      );
      button.appendChild(name);
      button.appendChild(meta);
      button.addEventListener('click', function () {
        openForm(network);
      });
      li.appendChild(button);
      ul.appendChild(li);
    });
  }

  function loadNetworks(refresh) {
    $('rescan').disabled = true;
    if (refresh) $('networks').innerHTML = '<li class="muted">Scanning…</li>';
    return api('/setup/api/networks' + (refresh ? '?refresh=1' : ''))
      .then(function (list) {
        renderNetworks(list);
        if (!list.length && !refresh) return loadNetworks(true);
      })
      .catch(function (error) {
        $('networks').innerHTML = '<li class="error"></li>';
        $('networks').firstChild.textContent = 'Scan failed: ' + error.message;
      })
      .then(function () {
        $('rescan').disabled = false;
      });
  }

  function openForm(network) {
    chosen = network;
    $('join-title').textContent = network ? 'Join “' + network.ssid + '”' : 'Join another network';
    $('ssid').value = network ? network.ssid : '';
    $('ssid').readOnly = Boolean(network);
    $('hidden').checked = false;
    $('hidden').parentNode.hidden = Boolean(network);
    $('password').value = '';
    var open = network && network.security === 'open';
    $('password').disabled = Boolean(open);
    $('password-hint').textContent = open
      ? 'This network is open: no password.'
      : '8 to 63 characters, or 64 hex digits. Leave empty for an open network.';
    $('form-error').hidden = true;
    show('join');
    (network ? $('password') : $('ssid')).focus();
  }

  function checkPassword(password) {
    if (password === '' || /^[0-9a-fA-F]{64}$/.test(password)) return null;
    if (!/^[\x20-\x7e]*$/.test(password))
      return 'A Wi-Fi password may use letters, digits, spaces and the symbols of a US keyboard.';
    if (password.length < 8 || password.length > 63)
      return 'A Wi-Fi password has 8 to 63 characters; this one has ' + password.length + '.';
    return null;
  }

  function formError(message) {
    $('form-error').textContent = message;
    $('form-error').hidden = false;
  }

  function submit(event) {
    event.preventDefault();
    var ssid = $('ssid').value;
    var password = $('password').disabled ? '' : $('password').value;
    if (!ssid) return formError('Type the network name.');
    var problem = checkPassword(password);
    if (problem) return formError(problem);
    var body = { ssid: ssid, password: password, hidden: $('hidden').checked };
    if (chosen && chosen.ssid_hex) body.ssid_hex = chosen.ssid_hex; // exact bytes, even when not UTF-8
    $('connect').disabled = true;
    api('/setup/api/connect', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    })
      .then(function () {
        var pending = { ssid: ssid, hidden: body.hidden, at: Date.now() };
        try {
          localStorage.setItem(PENDING_KEY, JSON.stringify(pending));
        } catch (e) {
          /* private mode */
        }
        startWatching(pending);
      })
      .catch(function (error) {
        formError(error.message);
      })
      .then(function () {
        $('connect').disabled = false;
      });
  }

  function setResult(title, text, tone) {
    $('result-title').textContent = title;
    $('result-title').className = tone || '';
    $('result-text').textContent = text;
  }

  function startWatching(pending) {
    show('result');
    retyping = pending;
    $('again').hidden = true;
    $('retype').hidden = true;
    setResult('Connecting to “' + pending.ssid + '”…', 'The box is trying the network. Keep this page open.');
    failures = 0;
    poll(pending);
  }

  function finish() {
    try {
      localStorage.removeItem(PENDING_KEY);
    } catch (e) {
      /* ignore */
    }
    clearTimeout(pollTimer);
  }

  function poll(pending) {
    clearTimeout(pollTimer);
    api('/setup/api/status')
      .then(function (status) {
        failures = 0;
        $('status-line').textContent = STATE_WORDS[status.state] || '';
        if (status.dashboard_url) {
          $('dashboard-link').href = status.dashboard_url;
          $('dashboard-link').textContent = status.dashboard_url;
        }
        if (status.state === 'connected' && status.ssid === pending.ssid) {
          finish();
          setResult(
            'Connected to “' + pending.ssid + '”',
            status.owner_needed
              ? 'The box is online. It has no owner yet: create the owner account now.'
              : 'The box is online. You can reconnect your phone to your usual network; the setup network closes by itself.',
            'good'
          );
          $('owner-next').hidden = !status.owner_needed;
          $('result-link').hidden = !status.dashboard_url;
          return;
        }
        if (status.error) {
          finish();
          setResult('Could not join “' + pending.ssid + '”', status.error_description || status.error, 'error');
          $('again').hidden = false;
          // A refused password is most often a typo: offer the same network again first.
          $('retype').hidden = status.error !== 'auth';
          return;
        }
        pollTimer = setTimeout(function () {
          poll(pending);
        }, 500);
      })
      .catch(function (error) {
        if (error.status === 404) {
          // Setup mode is over: the box left it because it is connected.
          finish();
          setResult('Setup is finished', 'The box closed its setup network, which it does once it is online.', 'good');
          $('result-link').hidden = false;
          return;
        }
        failures += 1;
        setResult(
          'Your phone lost the setup network',
          'This is expected when the box joins “' +
            pending.ssid +
            "”: its radio moves to that network's channel. " +
            'If joining failed, the setup network comes back and this page shows why. ' +
            'If it does not come back, the box is online: reconnect your phone to “' +
            pending.ssid +
            '” and open the dashboard.'
        );
        $('result-link').hidden = false;
        pollTimer = setTimeout(
          function () {
            poll(pending);
          },
          Math.min(5000, 500 * failures)
        );
      });
  }

  $('rescan').addEventListener('click', function () {
    loadNetworks(true);
  });
  $('manual').addEventListener('click', function () {
    openForm(null);
  });
  $('back').addEventListener('click', function () {
    show('choose');
  });
  $('retype').addEventListener('click', function () {
    // The network just tried: from the list when it came from there, else as typed.
    openForm(chosen && chosen.ssid === retyping.ssid ? chosen : null);
    if ($('ssid').value !== retyping.ssid) {
      $('ssid').value = retyping.ssid;
      $('hidden').checked = Boolean(retyping.hidden);
      $('join-title').textContent = 'Join “' + retyping.ssid + '”';
    }
    $('password').focus();
  });
  $('again').addEventListener('click', function () {
    show('choose');
    loadNetworks(false);
  });
  $('join').addEventListener('submit', submit);
  $('show').addEventListener('click', function () {
    var hidden = $('password').type === 'password';
    $('password').type = hidden ? 'text' : 'password';
    $('show').textContent = hidden ? 'Hide' : 'Show';
  });

  var pending;
  try {
    pending = JSON.parse(localStorage.getItem(PENDING_KEY) || 'null');
  } catch (e) {
    pending = null;
  }
  if (pending && Date.now() - pending.at < 30 * 60 * 1000) startWatching(pending);
  else {
    show('choose');
    loadNetworks(false);
  }
})();

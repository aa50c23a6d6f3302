// "Make the box reachable": the owner enters a name and says who keeps it pointing home (nobody, a
// dynamic-DNS provider's login, or their own DNS server's RFC 2136 key), then watches each step in
// plain words (DNS → port forwarding → certificate → public address → check), and whether the
// internet reaches the box over IPv4 and over IPv6 (or why not), through the owner API. "Try again now" re-runs the steps with the saved settings (secrets are never sent back, so
// the page cannot and need not hold them); "Turn off" undoes it all. When the router will not
// forward the ports itself, the page lists the forwarding to set up by hand. Shares the
// dashboard's login (its token in localStorage).
(function () {
  'use strict';
  var URL_PATH = '/api/nestbox/v1/reachability';
  var TOKEN_KEY = 'nestbox.dashboard.token';
  var STEPS = [
    ['dns', 'The name points at your home'],
    ['port_mapping', 'The router lets the internet in'],
    ['certificate', 'Certificate for https://'],
    ['switch', "The instance's public address"],
    ['check', 'Check from outside'],
  ];
  var WORDS = { pending: 'waiting', working: 'working on it…', ok: 'done', failed: 'not working yet', off: 'off' };
  var FAMILIES = [
    ['ipv4', 'Reachable over IPv4'],
    ['ipv6', 'Reachable over IPv6'],
  ];
  var FAMILY_WORDS = { pending: 'not yet', working: 'not yet', ok: 'yes', failed: 'no', off: 'no' };
  var PROVIDERS = {
    dyndns2: 'a dynamic-DNS provider',
    rfc2136: 'your DNS server',
  };
  /** The provider list follows the saved settings until the owner picks one. */
  var providerPicked = false;
  var $ = function (id) {
    return document.getElementById(id);
  };

  function call(method, body, path) {
    var token = localStorage.getItem(TOKEN_KEY);
    return fetch(URL_PATH + (path || ''), {
      method: method,
      headers: Object.assign({ authorization: 'Bearer ' + token }, body ? { 'content-type': 'application/json' } : {}),
      body: body ? JSON.stringify(body) : undefined,
    }).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) throw new Error(json.error || 'HTTP ' + response.status);
        return json;
      });
    });
  }

  /** Shows the fields of the chosen provider only. */
  function showProvider() {
    var chosen = $('reach-provider').value;
    $('reach-dyndns2').hidden = chosen !== 'dyndns2';
    $('reach-rfc2136').hidden = chosen !== 'rfc2136';
  }

  function showSteps(view) {
    var list = $('reach-steps');
    list.textContent = '';
    // Off (never set up, or turned off): no steps to follow.
    list.hidden = !view.name;
    if (!view.name) return;
    STEPS.forEach(function (entry) {
      var step = view.steps[entry[0]];
      var item = document.createElement('li');
      item.className = 'step-' + step.state;
      item.dataset.step = entry[0];
      item.dataset.state = step.state;
      var title = document.createElement('strong');
      title.textContent = entry[1] + ': ' + WORDS[step.state];
      item.appendChild(title);
      if (step.detail) {
        var detail = document.createElement('span');
        detail.textContent = ' — ' + step.detail;
        item.appendChild(detail);
      }
      list.appendChild(item);
    });
  }

  /** Whether the internet reaches the box over each address family, and why not. */
  function showFamilies(view) {
    var list = $('reach-families');
    list.textContent = '';
    list.hidden = !view.name || !view.families;
    if (list.hidden) return;
    FAMILIES.forEach(function (entry) {
      var family = view.families[entry[0]];
      var item = document.createElement('li');
      item.dataset.family = entry[0];
      item.dataset.state = family.state;
      item.textContent = entry[1] + ': ' + FAMILY_WORDS[family.state] + (family.detail ? ' — ' + family.detail : '');
      list.appendChild(item);
    });
  }

  function showManual(view) {
    var manual = $('reach-manual');
    manual.hidden = !view.manual;
    if (!view.manual) return;
    var mapping = view.steps.port_mapping;
    $('reach-manual-why').textContent =
      mapping.state === 'off'
        ? 'The box does not ask the router (port mapping is turned off).'
        : 'Your router did not forward the ports when the box asked' +
          (mapping.detail ? ': ' + mapping.detail.split('. Forward ')[0].replace(/\.$/, '') : '') +
          '.';
    var rules = $('reach-manual-rules');
    rules.textContent = '';
    view.manual.ports.forEach(function (port) {
      var rule = document.createElement('li');
      rule.textContent = 'TCP port ' + port.external + ' → ' + view.manual.internal_address + ', port ' + port.internal;
      rules.appendChild(rule);
    });
  }

  function show(view) {
    $('reach-name').value = $('reach-name').value || view.name || '';
    var saved = $('reach-saved-provider');
    saved.hidden = !view.dyndns;
    if (!providerPicked) {
      $('reach-provider').value = view.dyndns ? view.dyndns.protocol : 'none';
      showProvider();
    }
    if (view.dyndns)
      saved.textContent =
        'Saved: ' +
        PROVIDERS[view.dyndns.protocol] +
        ' (' +
        view.dyndns.server +
        ') keeps the name current. Its password or key is kept on the box and not shown; enter it again only to change it.';
    showSteps(view);
    showFamilies(view);
    showManual(view);
    $('reach-public').textContent = view.public_url
      ? 'Your instance is at ' +
        view.public_url +
        (view.certificate ? ' (certificate valid until ' + view.certificate.not_after + ')' : '') +
        familyWords(view.families)
      : '';
    $('reach-off').hidden = !view.name;
    $('reach-retry').hidden = !view.name;
  }

  /** Which address families reach the box (IPv4, IPv6 or both), with the reason one does not. */
  function familyWords(families) {
    if (!families) return '';
    var v4 = families.ipv4.state === 'ok';
    var v6 = families.ipv6.state === 'ok';
    if (v4 && v6) return '. Reachable over IPv4 and IPv6.';
    if (v6) return '. Reachable over IPv6 only (IPv4: ' + (families.ipv4.detail || families.ipv4.state) + ').';
    if (v4 && families.ipv6.state !== 'off')
      return '. Reachable over IPv4 only (IPv6: ' + (families.ipv6.detail || families.ipv6.state) + ').';
    return '';
  }

  function refresh() {
    if (!localStorage.getItem(TOKEN_KEY) || $('app').hidden) return;
    call('GET').then(show, function () {
      /* not running yet, or logged out: the next round tries again */
    });
  }

  /** What the owner typed, as the owner API takes it. */
  function providerSettings() {
    switch ($('reach-provider').value) {
      case 'dyndns2':
        return {
          protocol: 'dyndns2',
          url: $('reach-provider-url').value.trim(),
          username: $('reach-provider-user').value,
          password: $('reach-provider-password').value,
        };
      case 'rfc2136':
        return {
          protocol: 'rfc2136',
          server: $('reach-dns-server').value.trim(),
          zone: $('reach-dns-zone').value.trim(),
          key_name: $('reach-key-name').value.trim(),
          key_algorithm: $('reach-key-algorithm').value,
          key_secret: $('reach-key-secret').value.trim(),
        };
      default:
        return null;
    }
  }

  function failed(failure) {
    $('reach-error').textContent = failure.message;
    $('reach-error').hidden = false;
  }

  /** Secrets leave the page once sent: the box keeps them, the page does not. */
  function forgetSecrets() {
    $('reach-provider-password').value = '';
    $('reach-key-secret').value = '';
  }

  function submit(event) {
    event.preventDefault();
    $('reach-error').hidden = true;
    var dyndns = providerSettings();
    $('reach-http-warning').hidden = !(dyndns && dyndns.protocol === 'dyndns2' && /^http:/i.test(dyndns.url));
    call('PUT', { name: $('reach-name').value.trim(), dyndns: dyndns }).then(function (view) {
      forgetSecrets();
      show(view);
    }, failed);
  }

  document.addEventListener('DOMContentLoaded', function () {
    if (!$('reach-form')) return;
    $('reach-form').addEventListener('submit', submit);
    $('reach-provider').addEventListener('change', function () {
      providerPicked = true;
      showProvider();
    });
    showProvider();
    $('reach-retry').addEventListener('click', function () {
      $('reach-error').hidden = true;
      call('POST', null, '/retry').then(show, failed);
    });
    $('reach-off').addEventListener('click', function () {
      $('reach-error').hidden = true;
      call('DELETE').then(function (view) {
        $('reach-name').value = '';
        show(view);
      }, failed);
    });
    refresh();
    setInterval(refresh, 3000);
  });
})();

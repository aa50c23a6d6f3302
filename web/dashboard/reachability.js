// "Make the box reachable": the owner enters a name (and the dynamic-DNS provider's login), then
// watches each step in plain words (name → DNS → port forwarding → certificate → public address →
// check) through the owner API; any step can be retried by saving again, and the whole can be
// turned off. Shares the dashboard's login (its token in localStorage).
(function () {
  'use strict';
  var URL_PATH = '/api/nestbox/v1/reachability';
  var TOKEN_KEY = 'nestbox.dashboard.token';
  var STEPS = [
    ['dns', 'Name points at the box'],
    ['port_mapping', 'Port forwarding on the router'],
    ['certificate', 'Certificate'],
    ['switch', 'Public address'],
    ['check', 'Check from outside'],
  ];
  var WORDS = { pending: 'waiting', working: 'working…', ok: 'done', failed: 'problem', off: 'off' };
  var $ = function (id) {
    return document.getElementById(id);
  };

  function call(method, body) {
    var token = localStorage.getItem(TOKEN_KEY);
    return fetch(URL_PATH, {
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

  function show(view) {
    $('reach-name').value = $('reach-name').value || view.name || '';
    var list = $('reach-steps');
    list.textContent = '';
    STEPS.forEach(function (entry) {
      var step = view.steps[entry[0]];
      var item = document.createElement('li');
      item.className = 'step-' + step.state;
      item.dataset.step = entry[0];
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
    var manual = $('reach-manual');
    manual.hidden = !view.manual;
    if (view.manual)
      manual.textContent =
        'Set up on your router by hand: forward ' +
        view.manual.ports
          .map(function (p) {
            return 'TCP port ' + p.external + ' to ' + view.manual.internal_address + ' port ' + p.internal;
          })
          .join(' and ') +
        '.';
    $('reach-public').textContent = view.public_url
      ? 'Your instance is at ' +
        view.public_url +
        (view.certificate ? ' (certificate valid until ' + view.certificate.not_after + ')' : '') +
        familyWords(view.families)
      : '';
    $('reach-off').hidden = !view.name;
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

  function submit(event) {
    event.preventDefault();
    var error = $('reach-error');
    error.hidden = true;
    var provider = $('reach-provider-url').value.trim();
    var body = {
      name: $('reach-name').value.trim(),
      dyndns: provider
        ? {
            protocol: 'dyndns2',
            url: provider,
            username: $('reach-provider-user').value,
            password: $('reach-provider-password').value,
          }
        : null,
    };
    $('reach-http-warning').hidden = !/^http:/i.test(provider);
    call('PUT', body).then(show, function (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    if (!$('reach-form')) return;
    $('reach-form').addEventListener('submit', submit);
    $('reach-off').addEventListener('click', function () {
      call('DELETE').then(show, function (failure) {
        $('reach-error').textContent = failure.message;
        $('reach-error').hidden = false;
      });
    });
    refresh();
    setInterval(refresh, 3000);
  });
})();

// The device state in the owner's words, for the dashboard (dashboard.js renders it).
window.nestboxStateWords = (function () {
  'use strict';

  var SUMMARY = {
    starting: 'Starting…',
    connecting: 'Joining the Wi-Fi network…',
    reconnecting: 'Connection lost, reconnecting…',
    setup_ap: 'Waiting to be set up: the setup network is open',
    device_lost: 'The Wi-Fi chip does not answer',
    no_device: 'Running without a box',
  };
  var CONNECTIVITY = {
    starting: 'starting',
    connecting: 'joining the network',
    connected: 'online',
    reconnecting: 'reconnecting',
    setup_ap: 'waiting to be set up',
    device_lost: 'the Wi-Fi chip does not answer',
    no_device: 'no box (NESTBOX_COPROC=none)',
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

  function describeRelease(release) {
    if (!release || release.status === 'off') return 'not checked';
    if (release.status === 'match') return release.firmware + ' (same as the driver)';
    if (release.status === 'mismatch') return release.firmware + ', driver ' + release.driver + ': mismatch';
    return 'unknown (driver ' + release.driver + ')';
  }

  function describeReset(cop) {
    if (!cop.last_reset) return String(cop.resets);
    var last = cop.last_reset;
    var what = last.ok ? last.reason : 'failed, ' + last.error;
    return cop.resets + ' (last ' + new Date(last.at).toLocaleString() + ': ' + what + ')';
  }

  // The facts beside the summary; an instance without a box has none of the device's.
  function facts(state) {
    var wifi = state.wifi,
      cop = state.coprocessor,
      net = state.network;
    var storage = ['Storage', describeStorage(state.storage)];
    if (state.connectivity === 'no_device') return [['Connection', CONNECTIVITY.no_device], storage];
    var heartbeat = cop.last_heartbeat
      ? new Date(cop.last_heartbeat).toLocaleTimeString() + ' (#' + cop.heartbeat_number + ')'
      : '—';
    return [
      ['Connection', CONNECTIVITY[state.connectivity] || state.connectivity],
      ['Network', wifi.ssid || '—'],
      ['Channel', wifi.channel == null ? '—' : wifi.channel],
      ['MAC', wifi.mac || '—'],
      ['Setup network', describeSetupNetwork(state)],
      ['Link', cop.link],
      ['Last heartbeat', heartbeat],
      ['Transmit power', cop.tx_power_dbm == null ? '—' : cop.tx_power_dbm + ' dBm'],
      ['Power save', cop.power_save || '—'],
      ['Coprocessor resets', describeReset(cop)],
      ['Firmware release', describeRelease(cop.release)],
      storage,
      ['IP address', net ? net.address : '—'],
      ['Gateway', net && net.gateway ? net.gateway : '—'],
      ['DNS servers', net && net.dns.length ? net.dns.join(', ') : '—'],
      ['Lease until', net && net.lease_expires_at ? new Date(net.lease_expires_at).toLocaleString() : '—'],
    ];
  }

  return {
    facts: facts,
    SUMMARY: SUMMARY,
    CONNECTIVITY: CONNECTIVITY,
    describeSetupNetwork: describeSetupNetwork,
    describeStorage: describeStorage,
    describeRelease: describeRelease,
  };
})();

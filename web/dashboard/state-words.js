// The device state in the owner's words, for the dashboard (dashboard.js renders it).
window.nestboxStateWords = (function () {
  'use strict';

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

  function describeRelease(release) {
    if (!release || release.status === 'off') return 'not checked';
    if (release.status === 'match') return release.firmware + ' (same as the driver)';
    if (release.status === 'mismatch') return release.firmware + ', driver ' + release.driver + ': mismatch';
    return 'unknown (driver ' + release.driver + ')';
  }

  return {
    SUMMARY: SUMMARY,
    CONNECTIVITY: CONNECTIVITY,
    describeSetupNetwork: describeSetupNetwork,
    describeStorage: describeStorage,
    describeRelease: describeRelease,
  };
})();

/** `ip -o monitor link` lines as the interface watch reads them (iproute2's own output, recorded). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLinkLine } from '../../daemon/network/interface-watch.js';

test('a new interface, a flag change and a deletion: index, name without the veth peer, present or not', () => {
  assert.equal(
    parseLinkLine(
      '3: ethsta0@sta0: <BROADCAST,MULTICAST,M-DOWN> mtu 1500 qdisc noop state DOWN group default \\    link/ether ba:b7:9f:f4:11:31 brd ff:ff:ff:ff:ff:ff',
    ),
    { iface: 'ethsta0', ifindex: 3, present: true },
  );
  assert.equal(
    parseLinkLine(
      '12: ethap0: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500 qdisc pfifo_fast state DOWN group default qlen 1000\\    link/ether 24:0a:c4:12:34:57 brd ff:ff:ff:ff:ff:ff',
    ),
    { iface: 'ethap0', ifindex: 12, present: true },
  );
  assert.equal(
    parseLinkLine(
      'Deleted 3: ethsta0@NONE: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN group default \\    link/ether 24:0a:c4:00:00:01 brd ff:ff:ff:ff:ff:ff',
    ),
    { iface: 'ethsta0', ifindex: 3, present: false },
  );
});

test('anything else is not a link change', () => {
  for (const line of ['', 'garbage', '    link/ether 24:0a:c4:12:34:57', 'Deleted x: ethsta0: <UP>'])
    assert.is(parseLinkLine(line), null, line);
});

test.run();

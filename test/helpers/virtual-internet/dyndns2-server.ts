/**
 * A dynamic-DNS provider for the virtual internet (run inside its namespace): the dyndns2 update
 * protocol (GET /nic/update?hostname=&myip= with basic auth) in front of pebble-challtestsrv, whose
 * management API holds the public DNS records. `myip` may list an IPv4 and an IPv6 address,
 * comma-separated (Dyn's and No-IP's way): each sets its own record, A or AAAA, and a family not
 * given keeps its record; `myipv6` sets the AAAA record too, and given empty (`myipv6=`) removes it,
 * as deSEC's update API does. Each update is one JSON line on stdout. Like Dyn's
 * checkip.dyndns.org, it also echoes the caller's address (GET /checkip, plain text): the box's
 * NESTBOX_ADDRESS_ECHO_URL when the router tells nothing; each echo is a JSON line too.
 *
 *   node dyndns2-server.js HOST PORT USER PASSWORD MANAGEMENT_URL
 */
import { createServer } from 'node:http';
import { isIP } from 'node:net';

const [host, port, user, password, management] = process.argv.slice(2);
const current = new Map<string, string>();

/** Removes the name's AAAA records (challtestsrv's clear-aaaa). */
async function clearAaaa(name: string): Promise<void> {
  const answer = await fetch(`${management}/clear-aaaa`, {
    method: 'POST',
    body: JSON.stringify({ host: `${name}.` }),
  });
  if (!answer.ok) throw new Error(`challtestsrv answered ${answer.status}`);
}

async function setRecord(name: string, address: string): Promise<void> {
  const answer = await fetch(`${management}/${isIP(address) === 6 ? 'add-aaaa' : 'add-a'}`, {
    method: 'POST',
    body: JSON.stringify({ host: `${name}.`, addresses: [address] }),
  });
  if (!answer.ok) throw new Error(`challtestsrv answered ${answer.status}`);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://provider');
  if (url.pathname === '/checkip') {
    const caller = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(caller + '\n');
    process.stdout.write(JSON.stringify({ echo: caller }) + '\n');
    return;
  }
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const reply = (status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(text + '\n');
    process.stdout.write(
      JSON.stringify({
        update: url.searchParams.get('hostname'),
        myip: url.searchParams.get('myip'),
        myipv6: url.searchParams.get('myipv6'),
        answer: text,
      }) + '\n',
    );
  };
  if (url.pathname !== '/nic/update') return reply(404, 'nohost');
  if (req.headers.authorization !== expected) return reply(401, 'badauth');
  const name = url.searchParams.get('hostname') ?? '';
  const address = url.searchParams.get('myip') ?? req.socket.remoteAddress ?? '';
  if (!/^[a-z0-9.-]+\.[a-z]+$/.test(name)) return reply(200, 'notfqdn');
  const ipv6 = url.searchParams.get('myipv6');
  const addresses = [...address.split(','), ...(ipv6 ? [ipv6] : [])];
  if (addresses.length > 2 || !addresses.every((one) => isIP(one))) return reply(200, 'dnserr');
  const wanted = addresses.join(',');
  if (current.get(name) === wanted) return reply(200, `nochg ${wanted}`);
  const withdraw = ipv6 === '' ? [clearAaaa(name)] : [];
  Promise.all([...withdraw, ...addresses.map((one) => setRecord(name, one))]).then(
    () => {
      current.set(name, wanted);
      reply(200, `good ${wanted}`);
    },
    () => reply(200, 'dnserr'),
  );
});
server.listen(Number(port), host, () => process.stdout.write('{"ready":true}\n'));

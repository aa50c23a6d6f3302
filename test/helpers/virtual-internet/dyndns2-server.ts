/**
 * A dynamic-DNS provider for the virtual internet (run inside its namespace): the dyndns2 update
 * protocol (GET /nic/update?hostname=&myip= with basic auth) in front of pebble-challtestsrv, whose
 * management API holds the public DNS records. Each update is one JSON line on stdout. Like Dyn's
 * checkip.dyndns.org, it also echoes the caller's address (GET /checkip, plain text): the box's
 * NESTBOX_ADDRESS_ECHO_URL when the router tells nothing; each echo is a JSON line too.
 *
 *   node dyndns2-server.js HOST PORT USER PASSWORD MANAGEMENT_URL
 */
import { createServer } from 'node:http';

const [host, port, user, password, management] = process.argv.slice(2);
const current = new Map<string, string>();

async function setRecord(name: string, address: string): Promise<void> {
  const answer = await fetch(`${management}/add-a`, {
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
      JSON.stringify({ update: url.searchParams.get('hostname'), myip: url.searchParams.get('myip'), answer: text }) +
        '\n',
    );
  };
  if (url.pathname !== '/nic/update') return reply(404, 'nohost');
  if (req.headers.authorization !== expected) return reply(401, 'badauth');
  const name = url.searchParams.get('hostname') ?? '';
  const address = url.searchParams.get('myip') ?? req.socket.remoteAddress ?? '';
  if (!/^[a-z0-9.-]+\.[a-z]+$/.test(name)) return reply(200, 'notfqdn');
  if (current.get(name) === address) return reply(200, `nochg ${address}`);
  setRecord(name, address).then(
    () => {
      current.set(name, address);
      reply(200, `good ${address}`);
    },
    () => reply(200, 'dnserr'),
  );
});
server.listen(Number(port), host, () => process.stdout.write('{"ready":true}\n'));

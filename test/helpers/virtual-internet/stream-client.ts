/**
 * A Mastodon streaming client somewhere on the virtual internet (`ip netns exec NS node
 * stream-client.js URL TOKEN`, started by streaming.ts): opens a WebSocket with the token in the
 * Sec-WebSocket-Protocol header (as Mastodon's web app sends it), trusting the system roots and
 * NODE_EXTRA_CA_CERTS only, and prints `{"open":true}`, then each message as one JSON line; a
 * refused upgrade or an error is one `{"error":…}` line and exit code 1.
 */
import WebSocket from 'ws';

const [url, token] = process.argv.slice(2);
const fail = (error: string) => {
  process.stdout.write(JSON.stringify({ error }) + '\n');
  process.exit(1);
};
const socket = new WebSocket(url, [token]);
socket.on('open', () => process.stdout.write(JSON.stringify({ open: true }) + '\n'));
socket.on('message', (data) => process.stdout.write((data as Buffer).toString() + '\n'));
socket.on('unexpected-response', (_req, res) => fail(`HTTP ${res.statusCode}`));
socket.on('error', (error) => fail(error.message));
socket.on('close', () => process.exit(0));
process.on('SIGTERM', () => socket.close());

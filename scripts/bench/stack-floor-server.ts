/**
 * The floors' bare HTTP stack: koa + @koa/router answering one fixed 5 KB JSON body (5,051 bytes),
 * no database (the first HTTP row of docs/performance-floors.md). Run as its own
 * process by stack-floor.ts: `node stack-floor-server.js <port>`; prints "ready" once listening.
 */
import Koa from 'koa';
import Router from '@koa/router';

const BODY = {
  items: Array.from({ length: 40 }, (_, i) => ({
    id: String(110_000_000_000_000_000n + BigInt(i)),
    name: `item ${i}`,
    note: 'x'.repeat(48),
    count: i,
    flag: i % 2 === 0,
  })),
};

const app = new Koa();
const router = new Router();
router.get('/', (ctx) => {
  ctx.body = BODY;
});
app.use(router.routes());
const server = app.listen(Number(process.argv[2]), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));

/**
 * The one HTTP server of the box (API, web pages, OAuth, setup portal). Subsystems mount their
 * routers; stop() refuses new connections, lets in-flight requests finish, then closes the rest.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Koa, { type Middleware } from 'koa';
import type Router from '@koa/router';

type RouterMiddleware = ReturnType<Router['routes']>;
import type { Logger } from '../log/logger.js';
import { errorMiddleware, type FailureTests } from './errors.js';
import { routeTable } from './route-table.js';
import { cors } from './cors.js';
import { requestId } from './request-id.js';
import { gateRouter } from './router-gate.js';

export interface HttpServerOptions extends FailureTests {
  host: string;
  port: number;
  log: Logger;
}

export class HttpServer {
  readonly app = new Koa({ proxy: false });
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private inFlight = 0;
  private handle: ReturnType<Koa['callback']> | null = null;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: HttpServerOptions) {
    this.app.silent = true;
    this.app.use(this.countInFlight);
    this.app.use(cors());
    this.app.use(requestId());
    // Only at debug level: a pass-through layer still costs every request its frame.
    if (options.log.enabled('debug')) this.app.use(requestLog(options.log));
    this.app.use(errorMiddleware(options.log, options));
    // Koa composes its middleware when callback() is called: build it once, at start().
    // Koa's handler answers its own errors: the promise it returns never rejects.
    this.server = createServer((req, res) => void this.handle!(req, res));
    this.server.keepAliveTimeout = 5000;
    this.server.headersTimeout = 15000;
    this.server.requestTimeout = 120000;
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Adds middleware (usually a router's routes(), passed over by paths none of its routes can match) after the shared ones. */
  use(middleware: Middleware | RouterMiddleware): void {
    this.app.use(gateRouter(middleware) as Middleware);
  }

  get nodeServer(): Server {
    return this.server;
  }

  /** The composed app as a request listener, for another server of the same app (HTTPS); after start(). */
  get requestListener(): (req: IncomingMessage, res: ServerResponse) => void {
    const handle = this.handle;
    if (!handle) throw new Error('the HTTP server has not started yet');
    return (req, res) => void handle(req, res);
  }

  async start(): Promise<AddressInfo> {
    this.handle = this.app.callback();
    if (this.options.log.enabled('debug'))
      this.options.log.debug('http routes', {
        routes: routeTable(this.app.middleware).map(({ method, path }) => `${method} ${path}`),
      });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  /**
   * One more listener with the same app on another address (the setup portal on port 80 of the
   * soft AP's address). Its stop closes its connections at once: the AP is going away.
   */
  async listenAlso(host: string, port: number): Promise<{ stop: () => Promise<void> }> {
    if (!this.handle) throw new Error('the HTTP server has not started yet');
    const handle = this.handle;
    const server = createServer((req, res) => void handle(req, res));
    server.keepAliveTimeout = this.server.keepAliveTimeout;
    server.headersTimeout = this.server.headersTimeout;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return {
      stop: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  }

  async stop(graceMs = 5000): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    await Promise.race([this.drained(), delay(graceMs)]);
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private readonly countInFlight: Middleware = async (ctx, next) => {
    this.inFlight += 1;
    // Tell keep-alive clients to go once the server is shutting down.
    if (!this.server.listening) ctx.set('Connection', 'close');
    try {
      await next();
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) {
        if (!this.server.listening) this.server.closeIdleConnections();
        this.idleWaiters.splice(0).forEach((resolve) => resolve());
      }
    }
  };
}

function requestLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      // The path only: a query string may carry an access token.
      log.debug('request', {
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    }
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

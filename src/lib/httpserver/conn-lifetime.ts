import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { timerMs } from '../timer/index.ts';

const kExpired = Symbol('strata.connExpired');
const kShutdown = Symbol('strata.connShutdown');
const kResponses = Symbol('strata.connResponses');
const kRequest = Symbol('strata.connRequest');

interface TrackedSocket extends Socket {
  [kExpired]?: boolean;
  [kShutdown]?: boolean;
  [kResponses]?: Set<ServerResponse>;
  [kRequest]?: IncomingMessage;
}

// At shutdown, a client still sending the body of a request that was already answered gets this
// long after the connection's end to read the answer before the connection is closed: ending alone
// would wait for the client to finish its upload (or for -http.maxGracefulShutdownDuration).
const UNREAD_BODY_LINGER_MS = 250;

/**
 * ConnectionLifetime retires each incoming connection after a lifetime plus 0–10% jitter
 * (-http.connTimeout), so clients behind a load balancer reconnect and spread over new replicas.
 *
 * Retiring never closes a connection under the client: once the lifetime is over, the next
 * response whose headers are not out yet (the one in flight, else the next request's) carries
 * "Connection: close" and Node closes the connection after it, as VictoriaMetrics does. A
 * connection idle at that moment stays open until its next request or -http.idleConnTimeout
 * (which the server announces in "Keep-Alive: timeout=…", so clients drop it first): a server
 * that ends an idle keep-alive connection races the client's next request, which may already be
 * on the wire, and the client sees "socket hang up" for a request the server never answered.
 * Only shutdown (expireAll) ends idle connections at once.
 *
 * It works at the Node level ('request' events), so replies that bypass fastify's reply path
 * (hijacked, streamed by a proxy) are covered too.
 */
export class ConnectionLifetime {
  readonly #lifetimeMs: number;
  readonly #random: () => number;
  readonly #sockets = new Set<TrackedSocket>();

  constructor(lifetimeMs: number, random: () => number = Math.random) {
    this.#lifetimeMs = lifetimeMs;
    this.#random = random;
  }

  /** attach starts a timer for each connection the server accepts (TLS: after the handshake) and tracks its responses. */
  attach(server: Server, isTls: boolean): void {
    server.on(isTls ? 'secureConnection' : 'connection', (socket: TrackedSocket) => {
      this.#sockets.add(socket);
      const timer = this.#lifetimeMs <= 0 ? undefined : setTimeout(() => retire(socket), timerMs(this.#lifetimeMs * (1 + 0.1 * this.#random())));
      timer?.unref();
      socket.once('close', () => {
        clearTimeout(timer);
        this.#sockets.delete(socket);
      });
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket as TrackedSocket;
      socket[kRequest] = req;
      const responses = (socket[kResponses] ??= new Set());
      responses.add(res);
      if (socket[kExpired] === true) res.shouldKeepAlive = false;
      res.once('close', () => {
        responses.delete(res);
        // A response that went out before shutdown still promised keep-alive: end after the last one.
        if (socket[kShutdown] === true && responses.size === 0 && !socket.destroyed) endConnection(socket);
      });
    });
  }

  /** expireAll (at shutdown) ends idle connections now and the others after their current response. */
  expireAll(): void {
    for (const s of this.#sockets) {
      retire(s);
      s[kShutdown] = true;
      const responses = s[kResponses];
      if (responses === undefined || responses.size === 0) endConnection(s);
    }
  }
}

/** retire makes the connection's next response (the one in flight if its headers are not out yet) its last. */
function retire(socket: TrackedSocket): void {
  socket[kExpired] = true;
  for (const res of socket[kResponses] ?? []) if (!res.headersSent) res.shouldKeepAlive = false;
}

/** endConnection ends a connection at shutdown with no response in flight (see UNREAD_BODY_LINGER_MS). */
function endConnection(socket: TrackedSocket): void {
  socket.end();
  const req = socket[kRequest];
  if (req !== undefined && !req.complete) setTimeout(() => socket.destroy(), UNREAD_BODY_LINGER_MS).unref();
}

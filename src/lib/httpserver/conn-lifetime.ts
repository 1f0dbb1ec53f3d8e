import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { timerMs } from '../timer/index.ts';

const kExpired = Symbol('strata.connExpired');
const kResponses = Symbol('strata.connResponses');
const kRequest = Symbol('strata.connRequest');

interface TrackedSocket extends Socket {
  [kExpired]?: boolean;
  [kResponses]?: Set<ServerResponse>;
  [kRequest]?: IncomingMessage;
}

// At shutdown, a client still sending the body of a request that was already answered gets this
// long after the connection's end to read the answer before the connection is closed: ending alone
// would wait for the client to finish its upload (or for -http.maxGracefulShutdownDuration).
const UNREAD_BODY_LINGER_MS = 250;

/**
 * ConnectionLifetime closes each incoming connection after a lifetime plus 0–10% jitter
 * (-http.connTimeout), so clients behind a load balancer reconnect and spread over new replicas.
 * A connection with a request in flight closes right after that response ("Connection: close").
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
      const timer = this.#lifetimeMs <= 0 ? undefined : setTimeout(() => this.#expire(socket), timerMs(this.#lifetimeMs * (1 + 0.1 * this.#random())));
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
        if (socket[kExpired] === true && responses.size === 0 && !socket.destroyed) endConnection(socket);
      });
    });
  }

  /** expireAll (at shutdown) ends idle connections now and the others after their current response. */
  expireAll(): void {
    for (const s of this.#sockets) this.#expire(s);
  }

  #expire(socket: TrackedSocket): void {
    socket[kExpired] = true;
    const responses = socket[kResponses];
    if (responses === undefined || responses.size === 0) {
      endConnection(socket);
      return;
    }
    // Responses whose headers are not out yet announce the close; the socket ends after the last one.
    for (const res of responses) if (!res.headersSent) res.shouldKeepAlive = false;
  }
}

/** endConnection ends an expired connection with no response in flight (see UNREAD_BODY_LINGER_MS). */
function endConnection(socket: TrackedSocket): void {
  socket.end();
  const req = socket[kRequest];
  if (req !== undefined && !req.complete) setTimeout(() => socket.destroy(), UNREAD_BODY_LINGER_MS).unref();
}

import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Socket } from 'node:net';
import { timerMs } from '../timer/index.ts';

const kExpired = Symbol('strata.connExpired');
const kResponses = Symbol('strata.connResponses');

interface TrackedSocket extends Socket {
  [kExpired]?: boolean;
  [kResponses]?: Set<ServerResponse>;
}

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
      const responses = (socket[kResponses] ??= new Set());
      responses.add(res);
      if (socket[kExpired] === true) res.shouldKeepAlive = false;
      res.once('close', () => {
        responses.delete(res);
        if (socket[kExpired] === true && responses.size === 0 && !socket.destroyed) socket.end();
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
      socket.end();
      return;
    }
    // Responses whose headers are not out yet announce the close; the socket ends after the last one.
    for (const res of responses) if (!res.headersSent) res.shouldKeepAlive = false;
  }
}

import { type Server } from 'node:http';
import { type Socket } from 'node:net';

const kExpired = Symbol('strata.connExpired');
const kInFlight = Symbol('strata.connInFlight');

interface TrackedSocket extends Socket {
  [kExpired]?: boolean;
  [kInFlight]?: number;
}

/**
 * ConnectionLifetime closes each incoming connection after a lifetime plus 0–10% jitter
 * (-http.connTimeout), so clients behind a load balancer reconnect and spread over new replicas.
 * A connection with a request in flight closes right after that response ("Connection: close").
 */
export class ConnectionLifetime {
  readonly #lifetimeMs: number;
  readonly #random: () => number;
  readonly #sockets = new Set<TrackedSocket>();

  constructor(lifetimeMs: number, random: () => number = Math.random) {
    this.#lifetimeMs = lifetimeMs;
    this.#random = random;
  }

  /** attach starts a timer for each connection the server accepts (TLS: after the handshake). */
  attach(server: Server, isTls: boolean): void {
    server.on(isTls ? 'secureConnection' : 'connection', (socket: TrackedSocket) => {
      this.#sockets.add(socket);
      const timer = this.#lifetimeMs <= 0 ? undefined : setTimeout(() => this.#expire(socket), this.#lifetimeMs * (1 + 0.1 * this.#random()));
      timer?.unref();
      socket.once('close', () => {
        clearTimeout(timer);
        this.#sockets.delete(socket);
      });
    });
  }

  /** expireAll (at shutdown) ends idle connections now and the others after their current response. */
  expireAll(): void {
    for (const s of this.#sockets) this.#expire(s);
  }

  #expire(socket: TrackedSocket): void {
    socket[kExpired] = true;
    if ((socket[kInFlight] ?? 0) === 0) socket.end();
  }

  /** requestStarted counts a request on its socket. */
  requestStarted(socket: Socket): void {
    const s = socket as TrackedSocket;
    s[kInFlight] = (s[kInFlight] ?? 0) + 1;
  }

  /** shouldClose reports whether the response should carry "Connection: close". */
  shouldClose(socket: Socket): boolean {
    return (socket as TrackedSocket)[kExpired] === true;
  }

  /** requestFinished uncounts a request and ends an expired, now idle connection. */
  requestFinished(socket: Socket): void {
    const s = socket as TrackedSocket;
    s[kInFlight] = Math.max(0, (s[kInFlight] ?? 1) - 1);
    if (s[kExpired] === true && s[kInFlight] === 0 && !s.destroyed) s.end();
  }
}

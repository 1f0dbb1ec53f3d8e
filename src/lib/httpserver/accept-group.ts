import { createServer, type Server as NetServer } from 'node:net';

/**
 * ACCEPT_SOCKETS is how many listening sockets a server binds on Linux. libuv accepts one
 * connection per listening socket and event-loop turn (libuv PR 3696); a turn of a server under
 * load takes tens of milliseconds, so a burst of new connections (a client pool reconnecting, a
 * load test starting) waited seconds in the kernel's accept queue: 128 connections opened at once
 * against the auth proxy streaming 1 MiB responses had their first responses after up to 4 s,
 * later ones after 0.2 s. SO_REUSEPORT sockets on one address each accept one connection per turn.
 */
export const ACCEPT_SOCKETS = process.platform === 'linux' ? 16 : 1;

/** canShareListenPort: whether threads of this process can serve one port (AcceptGroup join). */
export function canShareListenPort(): boolean {
  return ACCEPT_SOCKETS > 1;
}

/** The net.Server settings an accepted socket inherits (Node sets them in net.Server's constructor). */
interface AcceptSettings {
  readonly allowHalfOpen?: boolean;
  readonly noDelay?: boolean;
  readonly keepAlive?: boolean;
  readonly keepAliveInitialDelay?: number;
  readonly highWaterMark?: number;
}

/**
 * AcceptGroup binds a server's address with several SO_REUSEPORT listening sockets: the server's
 * own and `count - 1` more whose connections are handed to it as 'connection' events, so the
 * server (HTTP, TLS or PROXY-protocol front) sees one stream of connections. The address stays
 * exclusive: a port in use, by anyone, fails with EADDRINUSE as a single socket would.
 */
export class AcceptGroup {
  readonly #extras: NetServer[];

  private constructor(extras: NetServer[]) {
    this.#extras = extras;
  }

  /**
   * listen binds primary (and the extra sockets) to host:port; port 0 picks a free port. With
   * `join`, the group adds its sockets to a port another thread of this process bound with an
   * AcceptGroup (Linux only), and the kernel spreads new connections over both threads' sockets.
   */
  static async listen(primary: NetServer, host: string, port: number, count = ACCEPT_SOCKETS, join = false): Promise<AcceptGroup> {
    if (join && !canShareListenPort()) throw new Error(`cannot share ${host}:${port} between threads: SO_REUSEPORT needs Linux`);
    if (count <= 1 && !join) {
      await listen(primary, { host, port });
      return new AcceptGroup([]);
    }
    // Another process binding the port with SO_REUSEPORT too would silently share its connections:
    // a plain socket binds only if nobody listens there.
    if (port !== 0 && !join) await closeServer(await listen(createServer(), { host, port }));
    await listen(primary, { host, port, reusePort: true });
    const bound = (primary.address() as { port: number }).port;
    const s = primary as unknown as AcceptSettings;
    const settings = {
      allowHalfOpen: s.allowHalfOpen, noDelay: s.noDelay, keepAlive: s.keepAlive, highWaterMark: s.highWaterMark,
      // net.Server keeps the delay in seconds and takes it in milliseconds.
      keepAliveInitialDelay: (s.keepAliveInitialDelay ?? 0) * 1000,
    };
    const extras: NetServer[] = [];
    try {
      for (let i = 1; i < count; i++) {
        const extra = createServer(settings, (socket) => primary.emit('connection', socket));
        extras.push(await listen(extra, { host, port: bound, reusePort: true }));
      }
    } catch (err) {
      await Promise.all([...extras, primary].map(closeServer));
      throw new Error(`cannot bind listening socket ${extras.length + 1} of ${count} to ${host}:${bound}`, { cause: err });
    }
    return new AcceptGroup(extras);
  }

  /** sockets is how many listening sockets the group holds (the primary's included). */
  get sockets(): number {
    return this.#extras.length + 1;
  }

  /**
   * close stops the extra sockets accepting and resolves once every connection they accepted has
   * closed (the primary is closed by its owner).
   */
  close(): Promise<void> {
    return Promise.all(this.#extras.map(closeServer)).then(() => {});
  }
}

function listen(server: NetServer, o: { host: string; port: number; reusePort?: boolean }): Promise<NetServer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o, () => {
      server.removeListener('error', reject);
      resolve(server);
    });
  });
}

function closeServer(server: NetServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
  });
}

// The connections of one client to one storage node: calls go to the least busy live connection;
// a new one is dialed (one at a time) while every connection is busy and the cap allows.

import { NodeUnavailableError } from '../storageapi/errors.ts';
import { ClientConnection, parseNodeAddress } from './client-connection.ts';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, type NodeClientOptions } from './options.ts';

export interface PoolOptions {
  readonly address: string;
  readonly service: number;
  readonly maxConnections: number;
  readonly connectTimeoutMs: number;
}

/**
 * clientPool resolves a client's options: its call timeout, and its pool of connections to the
 * node's service (dialing bounded by the call timeout too).
 */
export function clientPool(opts: NodeClientOptions, service: number, defaultMaxConnections: number): { timeoutMs: number; pool: ConnectionPool } {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const pool = new ConnectionPool({
    address: opts.address,
    service,
    maxConnections: opts.maxConnections ?? defaultMaxConnections,
    connectTimeoutMs: Math.min(opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, timeoutMs),
  });
  return { timeoutMs, pool };
}

export class ConnectionPool {
  readonly #o: PoolOptions;
  #conns: ClientConnection[] = [];
  #dialing: Promise<ClientConnection> | undefined;
  #closed = false;

  /** The constructor throws for an address that is not host:port (a configuration error, reported at startup). */
  constructor(o: PoolOptions) {
    parseNodeAddress(o.address);
    this.#o = o;
  }

  /** acquire returns a connection to use for one call. Rejects with NodeUnavailableError. */
  acquire(): Promise<ClientConnection> {
    if (this.#closed) return Promise.reject(new NodeUnavailableError(this.#o.address, `the client of storage node "${this.#o.address}" is closed`));
    this.#conns = this.#conns.filter((c) => !c.dead);
    let best: ClientConnection | undefined;
    for (const c of this.#conns) if (best === undefined || c.inFlight < best.inFlight) best = c;
    if (best !== undefined && (best.inFlight === 0 || this.#conns.length >= this.#o.maxConnections || this.#dialing !== undefined)) return Promise.resolve(best);
    this.#dialing ??= ClientConnection.open(this.#o.address, this.#o.service, this.#o.connectTimeoutMs).then(
      (c) => {
        this.#dialing = undefined;
        if (this.#closed) c.kill(new NodeUnavailableError(this.#o.address, `the client of storage node "${this.#o.address}" is closed`));
        else this.#conns.push(c);
        return c;
      },
      (err: unknown) => {
        this.#dialing = undefined;
        throw err;
      },
    );
    return this.#dialing;
  }

  /** close closes every connection; calls in flight fail with NodeUnavailableError. */
  close(): void {
    this.#closed = true;
    const err = new NodeUnavailableError(this.#o.address, `the client of storage node "${this.#o.address}" was closed`);
    for (const c of this.#conns) c.kill(err);
    this.#conns = [];
  }
}

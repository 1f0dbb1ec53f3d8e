import { Pool } from './undici-core.ts';
import { earlyResponseConnector } from './early-response.ts';

/** PoolOptions configure the upstream connection pool of each backend origin. */
export interface PoolOptions {
  /** connectionsPerOrigin caps connections to one origin; more requests queue in the pool. */
  readonly connectionsPerOrigin: number;
  /** idleTimeoutMs closes a connection idle this long. */
  readonly idleTimeoutMs: number;
  /** connectTimeoutMs bounds TCP+TLS connection setup. */
  readonly connectTimeoutMs: number;
}

/**
 * PoolRegistry keeps one undici Pool per backend origin ("http://host:port"), shared by every route
 * that targets it and kept across config reloads, so a reload does not drop warm connections.
 * `retain` replaces the set of origins in use; pools no longer used are closed gracefully (their
 * in-flight requests finish first).
 */
export class PoolRegistry {
  readonly #o: PoolOptions;
  readonly #pools = new Map<string, Pool>();

  constructor(o: PoolOptions) {
    this.#o = o;
  }

  /** get returns the pool for origin, creating it on first use. */
  get(origin: string): Pool {
    let p = this.#pools.get(origin);
    if (p === undefined) {
      p = new Pool(origin, {
        connections: this.#o.connectionsPerOrigin,
        keepAliveTimeout: this.#o.idleTimeoutMs,
        keepAliveMaxTimeout: this.#o.idleTimeoutMs,
        // A backend's answer to a body it refused is read even after the body's write failed.
        connect: earlyResponseConnector(this.#o.connectTimeoutMs),
        pipelining: 1,
      });
      this.#pools.set(origin, p);
    }
    return p;
  }

  /** retain closes (gracefully) the pools of origins not in `inUse`. */
  retain(inUse: ReadonlySet<string>): void {
    for (const [origin, p] of this.#pools) {
      if (inUse.has(origin)) continue;
      this.#pools.delete(origin);
      void p.close().catch(() => {});
    }
  }

  /** close closes every pool, waiting for in-flight requests. */
  async close(): Promise<void> {
    const all = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(all.map((p) => p.close().catch(() => {})));
  }

  /** destroy aborts every pool's requests and connections now. */
  async destroy(): Promise<void> {
    const all = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(all.map((p) => p.destroy().catch(() => {})));
  }
}

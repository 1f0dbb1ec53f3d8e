/**
 * Backend is one upstream target of a route: its load (requests in flight) and until when it is
 * skipped after a network failure, as the balancer reads them; their owner keeps them current.
 */
export interface Backend {
  /** inFlight is the number of requests currently sent to this backend. */
  readonly inFlight: number;
  /** brokenUntilMs: the backend is skipped before this time (ms since epoch; 0 = healthy). */
  readonly brokenUntilMs: number;
}

/** BalancingPolicy: `least_loaded` spreads load; `first_available` sends everything to the first healthy backend (failover). */
export type BalancingPolicy = 'least_loaded' | 'first_available';

/** BALANCING_POLICIES lists the accepted policies. */
export const BALANCING_POLICIES: readonly BalancingPolicy[] = ['least_loaded', 'first_available'];

/**
 * Balancer picks a backend per attempt. least_loaded is least-loaded round-robin: starting one
 * position further than the previous pick, it takes the first healthy backend with nothing in
 * flight, else the healthy one with the fewest requests in flight. first_available takes the first
 * healthy backend in list order. Backends marked broken (for -failTimeout) are skipped; when every
 * candidate is broken one is tried anyway, since only trying finds a backend alive again.
 */
export class Balancer<B extends Backend> {
  readonly backends: readonly B[];
  readonly #policy: BalancingPolicy;
  #next = 0;

  constructor(backends: readonly B[], policy: BalancingPolicy = 'least_loaded') {
    if (backends.length === 0) throw new Error('cannot balance over an empty backend list');
    this.backends = backends;
    this.#policy = policy;
  }

  /**
   * pick returns the backend for the next attempt, or undefined when every backend is in
   * `exclude` (already tried for this request). nowMs is the current time in ms. O(backends).
   */
  pick(nowMs: number, exclude?: ReadonlySet<B>): B | undefined {
    const list = this.backends;
    const n = list.length;
    if (n === 1) return exclude?.has(list[0]!) === true ? undefined : list[0];
    let start = 0;
    if (this.#policy === 'least_loaded') {
      start = this.#next;
      this.#next = start + 1 === n ? 0 : start + 1;
    }
    let best: B | undefined;
    let fallback: B | undefined;
    for (let i = 0; i < n; i++) {
      const b = list[(start + i) % n]!;
      if (exclude?.has(b) === true) continue;
      if (b.brokenUntilMs > nowMs) {
        fallback ??= b;
        continue;
      }
      if (b.inFlight === 0 || this.#policy === 'first_available') return b;
      if (best === undefined || b.inFlight < best.inFlight) best = b;
    }
    return best ?? fallback;
  }
}

/** HealthPolicy bounds how long a failed storage node stays out of rotation before it is re-checked. */
export interface HealthPolicy {
  /** minBackoffMs is the wait after a first failure; each failed re-check doubles it. */
  readonly minBackoffMs: number;
  /** maxBackoffMs caps the doubling. */
  readonly maxBackoffMs: number;
}

export const DEFAULT_HEALTH_POLICY: HealthPolicy = { minBackoffMs: 1_000, maxBackoffMs: 10_000 };

/**
 * NodeHealth is the rotation state of one storage node, a pure state machine (times are passed
 * in): a node is up until a call to it fails; then it is down (skipped) until its back-off has
 * passed, when one caller may claim a re-check (a probe). A probe that succeeds brings the node
 * back; one that fails doubles the back-off, up to maxBackoffMs. Any success brings it back.
 */
export class NodeHealth {
  readonly #policy: HealthPolicy;
  #down = false;
  #retryAt = 0;
  #backoffMs: number;
  #probing = false;

  constructor(policy: HealthPolicy = DEFAULT_HEALTH_POLICY) {
    this.#policy = policy;
    this.#backoffMs = policy.minBackoffMs;
  }

  /** isUp reports whether the node is in rotation. */
  get isUp(): boolean {
    return !this.#down;
  }

  /** retryAt is when a down node may be re-checked next (ms). */
  get retryAt(): number {
    return this.#retryAt;
  }

  /**
   * claimProbe reports whether the caller may re-check this down node now (its back-off has
   * passed and no other re-check is in flight); a true answer must be followed by succeeded() or
   * failed().
   */
  claimProbe(now: number): boolean {
    if (!this.#down || this.#probing || now < this.#retryAt) return false;
    this.#probing = true;
    return true;
  }

  /** failed records a failed call (or probe) at now; returns true when the node just left rotation. */
  failed(now: number): boolean {
    const wasUp = !this.#down;
    if (this.#down && this.#probing) this.#backoffMs = Math.min(this.#backoffMs * 2, this.#policy.maxBackoffMs);
    if (wasUp) this.#backoffMs = this.#policy.minBackoffMs;
    this.#down = true;
    this.#probing = false;
    this.#retryAt = now + this.#backoffMs;
    return wasUp;
  }

  /** succeeded records a successful call (or probe); returns true when the node just came back. */
  succeeded(): boolean {
    const wasDown = this.#down;
    this.#down = false;
    this.#probing = false;
    this.#backoffMs = this.#policy.minBackoffMs;
    return wasDown;
  }
}

import type { Timers } from './call.ts';
import { DEFAULT_HEALTH_POLICY, type HealthPolicy, NodeHealth } from './health.ts';
import type { NodeState } from './metrics.ts';
import { Rechecker } from './recheck.ts';

export interface NodeRotationOptions {
  readonly names: readonly string[];
  readonly health?: HealthPolicy;
  readonly now: () => number;
  readonly timers: Timers;
  /** check re-checks node k (index in names) while it is out of rotation; it must settle in bounded time. */
  readonly check: (k: number) => Promise<void>;
  readonly observer?: { nodeUp?(node: string): void; nodeDown?(node: string, err: unknown): void };
}

/**
 * NodeRotation is the rotation state of a list of storage nodes, shared by the insert and select
 * nodes: each node's NodeHealth (in or out, back-off) and its Rechecker, which brings a node out
 * of rotation back by itself. Callers report every call's outcome with succeeded or failed;
 * nodeUp / nodeDown are observed on the transitions only.
 */
export class NodeRotation {
  readonly #names: readonly string[];
  readonly #health: readonly NodeHealth[];
  readonly #recheck: readonly Rechecker[];
  readonly #now: () => number;
  readonly #obs: NonNullable<NodeRotationOptions['observer']>;

  constructor(o: NodeRotationOptions) {
    this.#names = o.names;
    this.#now = o.now;
    this.#obs = o.observer ?? {};
    this.#health = o.names.map(() => new NodeHealth(o.health ?? DEFAULT_HEALTH_POLICY));
    this.#recheck = o.names.map((name, k) => new Rechecker({
      health: this.#health[k]!, now: o.now, timers: o.timers, check: () => o.check(k), onUp: () => this.#obs.nodeUp?.(name),
    }));
  }

  isUp(k: number): boolean {
    return this.#health[k]!.isUp;
  }

  /** succeeded records that node k answered a call (it comes back into rotation if it was out). */
  succeeded(k: number): void {
    if (this.#health[k]!.succeeded()) this.#obs.nodeUp?.(this.#names[k]!);
  }

  /** failed records that node k could not be reached in time: it leaves rotation and is re-checked later. */
  failed(k: number, err: unknown): void {
    if (this.#health[k]!.failed(this.#now())) this.#obs.nodeDown?.(this.#names[k]!, err);
    this.#recheck[k]!.schedule();
  }

  /** nodeStates reports which nodes are in rotation. */
  nodeStates(): NodeState[] {
    return this.#names.map((name, k) => ({ name, up: this.#health[k]!.isUp }));
  }

  /** idle resolves once the background re-checks in flight have finished. */
  async idle(): Promise<void> {
    await Promise.all(this.#recheck.map((r) => r.idle()));
  }

  /** close stops the background re-checks (at shutdown). */
  close(): void {
    for (const r of this.#recheck) r.close();
  }
}

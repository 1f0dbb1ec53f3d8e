// Leader election with a coordination.k8s.io/v1 Lease, as client-go does it: the holder renews
// the lease every retry period; others take it over once it has not changed for a full lease
// duration (measured on their own clock, so clock skew between nodes does not matter). Writes
// are guarded by resourceVersion, so two candidates can never both win (one gets a 409).
import type { KubeClient } from '../k8s/client.ts';
import { isConflict, isNotFound } from '../k8s/errors.ts';
import { BUILTIN } from '../k8s/resources.ts';
import type { KubeObject } from '../k8s/types.ts';
import { sleep } from '../runtime/clock.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/logger.ts';

/** LeaderElectionOptions: durations in milliseconds; renewDeadline < leaseDuration. */
export interface LeaderElectionOptions {
  readonly client: KubeClient;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  readonly clock: Clock;
  readonly log: Logger;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

// MicroTime as the API expects it (RFC 3339 with microseconds).
const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/**
 * LeaderElector runs the election loop. `run` resolves when signal aborts; `onLead` runs while
 * leading and receives a signal that aborts when leadership is lost or the elector stops.
 */
export class LeaderElector {
  readonly #o: LeaderElectionOptions;
  #observed = '';
  #observedAt = 0;
  #leading = false;

  constructor(opts: LeaderElectionOptions) {
    this.#o = opts;
  }

  /** isLeader reports whether this process currently holds the lease. */
  get isLeader(): boolean {
    return this.#leading;
  }

  #spec(lease: KubeObject | undefined): LeaseSpec {
    return (lease?.['spec'] as LeaseSpec | undefined) ?? {};
  }

  #lease(spec: LeaseSpec, base?: KubeObject): KubeObject {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...(base?.metadata ?? {}), name: this.#o.name, namespace: this.#o.namespace },
      spec,
    };
  }

  // tryAcquireOrRenew returns true when this process holds the lease afterwards.
  async #tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name, identity, clock, leaseDurationMs } = this.#o;
    const now = clock.now();
    const mine: LeaseSpec = { holderIdentity: identity, leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000), acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 };
    const current = await client.get(BUILTIN.lease, { namespace, name });
    if (current === undefined) {
      await client.create(this.#lease(mine));
      this.#observe(this.#lease(mine), now);
      return true;
    }
    const spec = this.#spec(current);
    const record = JSON.stringify(spec);
    if (record !== this.#observed) this.#observe(current, now);
    const held = spec.holderIdentity !== undefined && spec.holderIdentity !== '';
    const expired = now > this.#observedAt + (spec.leaseDurationSeconds ?? 0) * 1000;
    if (held && spec.holderIdentity !== identity && !expired) return false;
    const next: LeaseSpec =
      spec.holderIdentity === identity
        ? { ...spec, renewTime: microTime(now), leaseDurationSeconds: mine.leaseDurationSeconds! }
        : { ...mine, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 };
    const updated = await client.replace(this.#lease(next, current));
    this.#observe(updated, now);
    return true;
  }

  #observe(lease: KubeObject, at: number): void {
    this.#observed = JSON.stringify(this.#spec(lease));
    this.#observedAt = at;
  }

  async #attempt(): Promise<boolean> {
    try {
      return await this.#tryAcquireOrRenew();
    } catch (err) {
      // 409: another candidate wrote first; 404: the lease vanished between get and replace.
      if (!isConflict(err) && !isNotFound(err)) this.#o.log.warn({ lease: this.#o.name, err }, 'cannot acquire or renew the leader lease');
      return false;
    }
  }

  /** run campaigns and leads until signal aborts; releases the lease on the way out. */
  async run(signal: AbortSignal, onLead: (leading: AbortSignal) => Promise<void>): Promise<void> {
    const { clock, retryPeriodMs, renewDeadlineMs, log, identity } = this.#o;
    while (!signal.aborted) {
      if (!(await this.#attempt())) {
        await sleep(clock, retryPeriodMs, signal);
        continue;
      }
      log.info({ identity, lease: this.#o.name }, 'became the leader');
      this.#leading = true;
      const lead = new AbortController();
      const stopLead = () => lead.abort();
      signal.addEventListener('abort', stopLead, { once: true });
      const work = onLead(lead.signal);
      let lastRenew = clock.now();
      while (!signal.aborted) {
        await sleep(clock, retryPeriodMs, signal);
        if (signal.aborted) break;
        if (await this.#attempt()) lastRenew = clock.now();
        else if (clock.now() - lastRenew > renewDeadlineMs) break;
      }
      this.#leading = false;
      lead.abort();
      signal.removeEventListener('abort', stopLead);
      await work;
      if (!signal.aborted) log.warn({ identity, lease: this.#o.name }, 'lost the leader lease');
    }
    await this.#release();
  }

  // release lets a successor take over at once instead of waiting a lease duration.
  async #release(): Promise<void> {
    const { client, namespace, name, identity } = this.#o;
    try {
      const current = await client.get(BUILTIN.lease, { namespace, name });
      if (current === undefined || this.#spec(current).holderIdentity !== identity) return;
      await client.replace(this.#lease({ ...this.#spec(current), holderIdentity: '', leaseDurationSeconds: 1 }, current));
    } catch (err) {
      this.#o.log.warn({ lease: name, err }, 'cannot release the leader lease');
    }
  }
}
